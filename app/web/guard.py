"""Who may reach a served desk: the per-start token, and the Host and Origin a request may name.

Why: loopback is no wall against the browser the user runs. A web page can open a
websocket to 127.0.0.1 (browsers allow cross-origin websockets; only the server can
refuse them) or reach it by DNS rebinding, so every request must prove it came from
someone who saw the token, through an address we serve.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from enum import Enum
from urllib.parse import urlsplit

TOKEN_ENV = "CUTLINE_SERVE_TOKEN"
TOKEN_PARAM = "token"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def new_token() -> str:
    """A fresh random token (192 bits) for one start of `cutline serve`."""
    return secrets.token_hex(24)


def cookie_name(port: int) -> str:
    """The cookie that carries the token; named per port because cookies ignore ports."""
    return f"cutline-token-{port}"


def is_loopback(host: str) -> bool:
    """True when `host` only accepts connections from this machine."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_port(netloc: str, default_port: int) -> tuple[str, int] | None:
    """(lower-case host, port) of a `Host` header or URL netloc; None when it does not parse."""
    try:
        parts = urlsplit(f"//{netloc.strip()}")
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if not host or parts.username is not None or parts.path:
        return None
    return host.lower(), port if port is not None else default_port


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an Origin header or a URL; None when it names no http(s) origin."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else (443 if scheme == "https" else 80)


class Refusal(Enum):
    """Why a request was turned away."""

    HOST = "foreign Host"
    ORIGIN = "foreign Origin"
    TOKEN = "no valid token"


@dataclass(frozen=True)
class Policy:
    """The token and the addresses one server accepts."""

    token: str
    hosts: frozenset[tuple[str, int]]
    origins: frozenset[tuple[str, str, int]] = field(default_factory=frozenset)

    def host_ok(self, header: str | None) -> bool:
        """A request's `Host` names an address we serve (a missing Host is refused: HTTP/1.1 requires it)."""
        if not header:
            return False
        parsed = host_port(header, 0)
        if parsed is None:
            return False
        name, port = parsed
        # no port: the scheme's default, which the server cannot see behind a TLS proxy
        return any((name, p) in self.hosts for p in ((80, 443) if port == 0 else (port,)))

    def origin_ok(self, header: str | None) -> bool:
        """A request's `Origin`, when present, is one of ours (`null` and opaque origins are not)."""
        if header is None:
            return True
        parsed = origin_of(header)
        return parsed is not None and parsed in self.origins

    def token_ok(self, *candidates: str | None) -> bool:
        """One of the offered tokens is ours (compared in constant time)."""
        expected = self.token.encode()
        return any(c is not None and hmac.compare_digest(c.encode(), expected) for c in candidates)

    def check(self, host: str | None, origin: str | None, *tokens: str | None) -> Refusal | None:
        """Why this request must be refused, or None when it may pass."""
        if not self.host_ok(host):
            return Refusal.HOST
        if not self.origin_ok(origin):
            return Refusal.ORIGIN
        if not self.token_ok(*tokens):
            return Refusal.TOKEN
        return None


def served_names(host: str) -> tuple[str, ...]:
    """The host names a browser may use for the bound address: every loopback name for a loopback bind."""
    if is_loopback(host):
        return (*LOOPBACK_NAMES, host.lower().strip("[]"))
    return (host.lower().strip("[]"),)


def make_policy(
    token: str, host: str, port: int, public_url: str | None = None, allow_origins: tuple[str, ...] = ()
) -> Policy:
    """The policy for a server bound to host:port, reached at `public_url`, plus the origins a person allowed.

    Raises ValueError naming an `--allow-origin` that is not an http(s) origin.
    """
    hosts = {(name, port) for name in served_names(host)}
    origins = {(scheme, name, port) for name, _ in hosts for scheme in ("http",)}
    extra: list[str] = list(allow_origins)
    if public_url:
        extra.append(public_url)
    for url in extra:
        parsed = origin_of(url)
        if parsed is None:
            raise ValueError(f"{url!r} is not an origin like http://host:port")
        origins.add(parsed)
        hosts.add((parsed[1], parsed[2]))
    return Policy(token=token, hosts=frozenset(hosts), origins=frozenset(origins))
