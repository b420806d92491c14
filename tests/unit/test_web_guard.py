"""The web guard's rules: which Host, Origin and token a served desk accepts."""

from __future__ import annotations

import pytest

from cutline.app.commands.serve import browser_available
from cutline.app.web.guard import Refusal, make_policy, new_token
from cutline.app.web.pages import refusal_page, too_many_page

TOKEN = "t0ken"


def test_tokens_are_random_and_long() -> None:
    first, second = new_token(), new_token()
    assert first != second
    assert len(first) >= 32


def test_loopback_bind_accepts_every_loopback_name_on_its_port_only() -> None:
    policy = make_policy(TOKEN, "127.0.0.1", 8123)
    for host in ("127.0.0.1:8123", "localhost:8123", "LOCALHOST:8123", "[::1]:8123"):
        assert policy.check(host, None, TOKEN) is None, host
    for host in ("127.0.0.1:8124", "attacker.example:8123", "attacker.example", "127.0.0.1", "", None):
        assert policy.check(host, None, TOKEN) is Refusal.HOST, host


def test_origin_must_name_the_served_address_when_present() -> None:
    policy = make_policy(TOKEN, "127.0.0.1", 8123)
    assert policy.check("127.0.0.1:8123", "http://127.0.0.1:8123", TOKEN) is None
    assert policy.check("127.0.0.1:8123", "http://localhost:8123", TOKEN) is None
    for origin in ("https://attacker.example", "http://127.0.0.1:9999", "null", "file://", "https://127.0.0.1:8123"):
        assert policy.check("127.0.0.1:8123", origin, TOKEN) is Refusal.ORIGIN, origin


def test_allow_origin_adds_one_origin_and_its_host() -> None:
    policy = make_policy(TOKEN, "127.0.0.1", 8123, allow_origins=("https://desk.example",))
    assert policy.check("desk.example", "https://desk.example", TOKEN) is None
    assert policy.check("desk.example:443", "https://desk.example:443", TOKEN) is None
    assert policy.check("127.0.0.1:8123", "https://other.example", TOKEN) is Refusal.ORIGIN
    with pytest.raises(ValueError):
        make_policy(TOKEN, "127.0.0.1", 8123, allow_origins=("desk.example",))


def test_the_token_is_required_and_compared_exactly() -> None:
    policy = make_policy(TOKEN, "127.0.0.1", 8123)
    assert policy.check("127.0.0.1:8123", None) is Refusal.TOKEN
    assert policy.check("127.0.0.1:8123", None, None, "") is Refusal.TOKEN
    assert policy.check("127.0.0.1:8123", None, TOKEN + "x") is Refusal.TOKEN
    assert policy.check("127.0.0.1:8123", None, TOKEN.upper()) is Refusal.TOKEN
    assert policy.check("127.0.0.1:8123", None, None, "wrong", TOKEN) is None  # e.g. the cookie holds it


def test_a_public_bind_accepts_its_own_name_only() -> None:
    policy = make_policy(TOKEN, "192.0.2.10", 8000)
    assert policy.check("192.0.2.10:8000", "http://192.0.2.10:8000", TOKEN) is None
    assert policy.check("localhost:8000", None, TOKEN) is Refusal.HOST


def test_refusal_pages_say_how_to_get_in_and_never_hold_the_token() -> None:
    page = refusal_page(Refusal.TOKEN, "http://127.0.0.1:8123")
    assert "?token=" in page and "cutline serve" in page and TOKEN not in page
    assert "--allow-origin" in refusal_page(Refusal.ORIGIN, "http://127.0.0.1:8123")
    assert "<script" not in refusal_page(Refusal.HOST, "http://<script>:1")
    assert "too many open desks" in too_many_page(4) and "--max-desks" in too_many_page(4)


def test_a_browser_is_opened_only_where_one_can_show() -> None:
    assert not browser_available({}, "linux")
    assert browser_available({"DISPLAY": ":0"}, "linux")
    assert browser_available({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not browser_available({"DISPLAY": ":0", "CI": "true"}, "linux")
    assert browser_available({}, "darwin")
