"""The small HTML pages a browser gets instead of the desk: refused, or too many desks open."""

from __future__ import annotations

from html import escape

from cutline.app.web.guard import TOKEN_ENV, Refusal

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>cutline: {title}</title>
<style>body{{background:#0c181f;color:#e8eef2;font:16px/1.5 ui-monospace,menlo,monospace;margin:3em auto;max-width:46em;padding:0 1em}}
code{{background:#12232d;padding:0 .3em}}</style></head>
<body><h1>{title}</h1>{body}</body></html>
"""


def _page(title: str, *paragraphs: str) -> str:
    return _PAGE.format(title=escape(title), body="".join(f"<p>{p}</p>" for p in paragraphs))


def refusal_page(refusal: Refusal, address: str) -> str:
    """What a refused browser reads: why, and how to get in (never the token itself)."""
    home = escape(address)
    if refusal is Refusal.TOKEN:
        return _page(
            "this desk needs its token",
            "cutline serves the review desk only to whoever holds the token it made when it started: "
            "the desk can read every stored session and spend the configured API key.",
            "Open the address <code>cutline serve</code> printed in its terminal "
            f"(<code>{home}/?token=…</code>); the browser keeps the token in a cookie after that.",
            f"Started with <code>--token</code> or <code>{TOKEN_ENV}</code>? Add <code>?token=</code> and that "
            "token to the address.",
        )
    what = "address (Host)" if refusal is Refusal.HOST else "page (Origin)"
    return _page(
        "refused: not this desk's address",
        f"This request came through an {what} that cutline does not serve, so it was refused: "
        "another web page or a DNS name pointing at this machine must not drive the desk.",
        f"Open <code>{home}/</code> with the token <code>cutline serve</code> printed, or restart it with "
        "<code>--allow-origin URL</code> to allow another address (a proxy, for example).",
    )


def too_many_page(limit: int) -> str:
    """What a tab past the limit reads."""
    return _page(
        "too many open desks",
        f"cutline runs at most {limit} desks at once (one app process per browser tab), and all are in use.",
        "Close another cutline tab, then reload this one; or restart <code>cutline serve</code> with a higher "
        "<code>--max-desks</code>.",
    )
