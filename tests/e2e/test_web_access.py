"""Who gets a desk from `cutline serve`: token, Host and Origin checks, the desk limit and start-up refusals.

Every test runs the real server as a subprocess on a free loopback port; app processes
are counted as the server's child processes in /proc.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from tests.support.browser import CHROMEDRIVER, CHROMIUM, require_browser
from tests.support.paths import ROOT

pytestmark = pytest.mark.e2e

TOKEN = "access-test-token-0123456789"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _children(pid: int) -> list[int]:
    """Process ids whose parent is `pid` (the server's app processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


@dataclass
class Served:
    proc: subprocess.Popen[str]
    port: int
    address_line: str = ""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def desks(self) -> int:
        return len(_children(self.proc.pid))

    def wait_desks(self, wanted: int, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.desks() == wanted:
                return
            time.sleep(0.1)
        raise AssertionError(f"{self.desks()} app processes, wanted {wanted}")


def _status(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _start(home: Path, *extra: str) -> Served:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cutline.app.cli", "serve", "--port", str(port), "--no-browser", *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CUTLINE_HOME": str(home)},
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()  # the address, printed once the port is bound
    assert first.startswith("cutline desk: "), (first, proc.poll())
    return Served(proc, port, first)


def _stop(served: Served) -> tuple[str, str]:
    """Stop the server; its whole stdout (the address line included) and stderr."""
    served.proc.terminate()
    try:
        out, err = served.proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        served.proc.kill()
        out, err = served.proc.communicate()
    return served.address_line + out, err


@pytest.fixture
def served(cutline_home: Path) -> Iterator[Served]:
    server = _start(cutline_home, "--token", TOKEN, "--max-desks", "3")
    try:
        yield server
    finally:
        _stop(server)


async def _handshake(url: str, headers: dict[str, str]) -> int:
    """The HTTP status a websocket handshake got (101 when it was accepted), closing it at once."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as error:
            return error.status


def test_the_page_needs_the_token(served: Served) -> None:
    status, page = _status(f"{served.base}/")
    assert status == 403
    assert "this desk needs its token" in page and "?token=" in page
    assert TOKEN not in page
    status, _ = _status(f"{served.base}/static/js/textual.js")
    assert status == 403
    assert _status(f"{served.base}/?token=wrong")[0] == 403
    # the tokened address redirects to the bare one and leaves the token in a cookie
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with browser.open(f"{served.base}/?token={TOKEN}&fontsize=14", timeout=30) as response:
        assert response.status == 200 and response.url == f"{served.base}/?fontsize=14"
    with browser.open(f"{served.base}/static/js/textual.js", timeout=30) as response:
        assert response.status == 200
    assert _status(f"{served.base}/", {"Cookie": f"cutline-token-{served.port}={TOKEN}"})[0] == 200
    assert _status(f"{served.base}/", {"Authorization": f"token {TOKEN}"})[0] == 200


def test_foreign_host_or_origin_is_refused_even_with_the_token(served: Served) -> None:
    cookie = {"Cookie": f"cutline-token-{served.port}={TOKEN}"}
    status, page = _status(f"{served.base}/", {**cookie, "Host": f"attacker.example:{served.port}"})
    assert status == 403 and "not this desk" in page
    assert _status(f"{served.base}/", {**cookie, "Origin": "https://attacker.example"})[0] == 403
    assert _status(f"{served.base}/", {**cookie, "Origin": f"http://localhost:{served.port}"})[0] == 200


def test_refused_websockets_start_no_app_process(served: Served) -> None:
    ws = f"ws://127.0.0.1:{served.port}/ws"
    ours = f"http://127.0.0.1:{served.port}"
    cookie = f"cutline-token-{served.port}={TOKEN}"
    attempts = {
        "foreign origin": (f"{ws}?token={TOKEN}", {"Origin": "https://attacker.example"}),
        "foreign host": (f"{ws}?token={TOKEN}", {"Origin": ours, "Host": f"rebound.example:{served.port}"}),
        "no token": (ws, {"Origin": ours}),
        "wrong cookie": (ws, {"Origin": ours, "Cookie": f"cutline-token-{served.port}=guess"}),
    }
    for name, (url, headers) in attempts.items():
        assert asyncio.run(_handshake(url, headers)) == 403, name
        assert served.desks() == 0, name

    async def one_desk() -> None:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(ws, headers={"Origin": ours, "Cookie": cookie}) as socket_,
        ):
            await socket_.send_json(["resize", {"width": 80, "height": 24}])
            await asyncio.to_thread(served.wait_desks, 1)

    # the control: a proper handshake does start a desk, and it ends when its tab goes
    asyncio.run(one_desk())
    served.wait_desks(0)


def test_at_most_max_desks_under_twenty_parallel_connections(served: Served) -> None:
    ws = f"ws://127.0.0.1:{served.port}/ws?token={TOKEN}"
    headers = {"Origin": f"http://127.0.0.1:{served.port}"}
    peak = 0
    sampling = True

    def sample() -> None:
        nonlocal peak
        while sampling:
            peak = max(peak, served.desks())
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()

    async def storm() -> tuple[int, list[str]]:
        async with aiohttp.ClientSession() as session:
            sockets = await asyncio.gather(*(session.ws_connect(ws, headers=headers) for _ in range(20)))
            turned_away: list[str] = []
            for sock in sockets:
                try:
                    message = await sock.receive(timeout=60)
                except TimeoutError:
                    continue
                if message.type == aiohttp.WSMsgType.BINARY and b"too many open desks" in message.data:
                    turned_away.append(message.data.decode())
            await asyncio.to_thread(served.wait_desks, 3)
            status, page = await asyncio.to_thread(_status, f"{served.base}/", {"Authorization": f"token {TOKEN}"})
            assert status == 503 and "too many open desks" in page
            for sock in sockets:
                await sock.close()
            return len(sockets), turned_away

    try:
        opened, turned_away = asyncio.run(storm())
        served.wait_desks(0)  # every desk ends when its tab goes
    finally:
        sampling = False
        sampler.join()
    assert opened == 20
    assert len(turned_away) == 17
    assert peak == 3


def test_the_token_stays_out_of_the_logs(cutline_home: Path) -> None:
    server = _start(cutline_home, "--token", TOKEN)
    _status(f"{server.base}/?token={TOKEN}")
    _status(f"{server.base}/static/js/textual.js?token={TOKEN}")
    _status(f"{server.base}/?token=not-it")
    out, err = _stop(server)
    assert out.count(TOKEN) == 1  # the address printed at start
    assert f"http://127.0.0.1:{server.port}/?token={TOKEN}" in out
    assert TOKEN not in err and "not-it" not in err
    assert "GET /static/js/textual.js 200" in err  # requests are logged, by path


def test_a_token_from_the_environment(cutline_home: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cutline.app.cli", "serve", "--port", str(port), "--no-browser"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CUTLINE_HOME": str(cutline_home), "CUTLINE_SERVE_TOKEN": "from-the-env"},
    )
    server = Served(proc, port)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.strip() == f"cutline desk: http://127.0.0.1:{port}/?token=from-the-env"
        assert _status(f"{server.base}/", {"Authorization": "token from-the-env"})[0] == 200
    finally:
        _stop(server)


def test_each_start_makes_a_new_token(cutline_home: Path) -> None:
    tokens = []
    for _ in range(2):
        server = _start(cutline_home)
        out, _ = _stop(server)
        tokens.append(out.split("?token=", 1)[1].split()[0])
    assert tokens[0] != tokens[1] and len(tokens[0]) >= 32


def _serve_fails(home: Path, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "cutline.app.cli", "serve", "--no-browser", *args],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "CUTLINE_HOME": str(home)},
    )
    assert result.returncode != 0
    assert result.stdout == ""  # nothing served, no address printed
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_start_up_refusals_are_one_line_before_serving(cutline_home: Path, tmp_path: Path) -> None:
    assert "no stored session matches 'nosuch'" in _serve_fails(cutline_home, "nosuch", "--port", str(_free_port()))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert f"port {port} on 127.0.0.1 is already in use" in _serve_fails(cutline_home, "--port", str(port))
    not_a_dir = tmp_path / "home-is-a-file"
    not_a_dir.write_text("")
    assert f"cannot write {not_a_dir}" in _serve_fails(not_a_dir, "--port", str(_free_port()))
    assert "--token" in _serve_fails(cutline_home, "--token", "", "--port", str(_free_port()))
    assert "--allow-origin" in _serve_fails(cutline_home, "--allow-origin", "nope", "--port", str(_free_port()))


def _chrome(tmp_path: Path):  # type: ignore[no-untyped-def]
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def test_browser_without_the_token_sees_the_refusal_and_with_it_the_desk(served: Served, tmp_path: Path) -> None:
    driver = _chrome(tmp_path)
    try:
        driver.get(f"{served.base}/")
        assert "this desk needs its token" in driver.page_source
        assert served.desks() == 0
        driver.get(f"{served.base}/?token={TOKEN}")
        assert driver.current_url == f"{served.base}/"  # the token left the address bar for a cookie
        served.wait_desks(1)  # the page's websocket carried the cookie and got its desk
        driver.get(f"{served.base}/")  # the cookie alone lets the next visit in
        assert "this desk needs its token" not in driver.page_source
        driver.get("about:blank")
        served.wait_desks(0)  # the tab went, and so did its app process
    finally:
        driver.quit()
