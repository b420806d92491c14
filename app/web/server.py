"""textual-serve's Server behind a guard: token, Host and Origin checks, a bound on app processes.

Why a subclass and not a fork: textual-serve already speaks the browser's protocol and
runs one app process per websocket; what it lacks is who may connect and how many.
The guard is an aiohttp middleware in front of every route, the limit wraps the
websocket route, and the app process runs without a shell, in its own process group,
and is killed when it ignores the quit its closed tab sends (and when serve stops).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
import signal
import socket
import sys
from asyncio.subprocess import Process
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp_jinja2
from aiohttp import WSCloseCode, web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from cutline.app.web.guard import TOKEN_ENV, TOKEN_PARAM, Policy, Refusal, cookie_name
from cutline.app.web.pages import refusal_page, too_many_page
from cutline.app.widgets.safe_text import one_line

log = logging.getLogger("cutline.serve")

QUIT_GRACE_SECONDS = 10.0
SLOT_WAIT_SECONDS = 5.0
TOO_MANY_CLOSE_CODE = 1013  # "try again later"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class QuietAccessLogger(AbstractAccessLogger):
    """One line per request with the path only: no query string (the token rides there), control characters shown."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        self.logger.info("%s %s %s", request.method, one_line(request.path, 200), response.status)


class DeskService(AppService):
    """One tab's app process: run without a shell, killed if it will not quit."""

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment.pop(TOKEN_ENV, None)  # the desk has no use for the token
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        self._process = process = await asyncio.create_subprocess_exec(
            *shlex.split(self.command),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    @property
    def process(self) -> Process | None:
        """The app process, once started."""
        return self._process

    async def stop(self) -> None:
        """Ask the app to quit; kill it when it has not ended within the grace period."""
        process: Process | None = self._process
        try:
            await asyncio.wait_for(super().stop(), QUIT_GRACE_SECONDS)
        except (TimeoutError, ConnectionError):
            pass
        finally:
            if process is not None:
                await _end(process)


async def _end(process: Process) -> None:
    """Wait briefly for the process to exit after quit, then kill it."""
    try:
        await asyncio.wait_for(process.wait(), QUIT_GRACE_SECONDS)
        return
    except TimeoutError:
        pass
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    await process.wait()


class DeskServer(Server):
    """textual-serve's Server with cutline's guard in front of every route and a bound on open desks."""

    def __init__(
        self,
        command: str,
        *,
        host: str,
        port: int,
        policy: Policy,
        max_desks: int,
        address: str,
        public_url: str | None = None,
    ) -> None:
        super().__init__(command, host=host, port=port, title="cutline", public_url=public_url)
        self.policy = policy
        self.max_desks = max_desks
        self.address = address
        self._explicit_public_url = public_url
        self._cookie = cookie_name(port)
        self._secure_cookie = address.startswith("https:")
        self._desks = 0
        self._freed = asyncio.Event()
        self._sockets: set[web.WebSocketResponse] = set()
        self._services: set[DeskService] = set()

    # -- set-up ----------------------------------------------------------------

    def initialize_logging(self) -> None:
        """Plain log lines on stderr: no rich tracebacks with locals, which could show the token."""
        logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._guard)
        app.on_cleanup.append(self._kill_leftovers)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Nothing to print: `cutline serve` printed the address before serving."""

    async def on_shutdown(self, app: web.Application) -> None:
        """Close every open desk's websocket so its handler stops the app process."""
        for websocket in list(self._sockets):
            await websocket.close(code=WSCloseCode.GOING_AWAY, message=b"cutline serve is stopping")

    async def _kill_leftovers(self, app: web.Application) -> None:
        """Kill any app process still running when the server ends: none outlives `cutline serve`."""
        for service in list(self._services):
            process = service.process
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()

    def run(self, sock: socket.socket) -> None:
        """Serve on an already bound socket until Ctrl+C or SIGTERM."""
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(signum, self.request_exit)
        web.run_app(
            self._make_app(),
            sock=sock,
            handle_signals=False,
            loop=loop,
            print=None,
            access_log_class=QuietAccessLogger,
            shutdown_timeout=QUIT_GRACE_SECONDS,
        )

    def request_exit(self) -> None:
        raise GracefulExit()

    # -- the guard -------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Refuse a request through a foreign Host or Origin or without the token; remember a tokened visit."""
        query_token = request.query.get(TOKEN_PARAM)
        authorization = request.headers.get("Authorization", "")
        header_token = authorization[6:].strip() if authorization.lower().startswith("token ") else None
        refusal = self.policy.check(
            request.headers.get("Host"),
            request.headers.get("Origin"),
            query_token,
            header_token,
            request.cookies.get(self._cookie),
        )
        if refusal is not None:
            log.warning("refused %s %s: %s", request.method, one_line(request.path, 200), refusal.value)
            return self._refused(refusal)
        if query_token is not None and self.policy.token_ok(query_token) and _is_page_visit(request):
            # keep the token in a cookie and take it out of the address bar (and out of history)
            kept = [(key, value) for key, value in request.query.items() if key != TOKEN_PARAM]
            location = str(request.rel_url.with_query(kept))
            response = web.Response(status=303, headers={"Location": location, "Cache-Control": "no-store"})
            response.set_cookie(
                self._cookie, self.policy.token, httponly=True, samesite="Strict", secure=self._secure_cookie, path="/"
            )
            return response
        return await handler(request)

    def _refused(self, refusal: Refusal) -> web.Response:
        return web.Response(
            status=403,
            text=refusal_page(refusal, self.address),
            content_type="text/html",
            headers={"Cache-Control": "no-store"},
        )

    # -- the desk page and its websocket ---------------------------------------

    async def _slot(self) -> bool:
        """Whether a desk can start: waits a moment for one to free (a reloaded tab's old desk is still quitting)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SLOT_WAIT_SECONDS
        while self._desks >= self.max_desks:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            self._freed.clear()
            try:
                await asyncio.wait_for(self._freed.wait(), remaining)
            except TimeoutError:
                return False
        return True

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The desk page, its websocket and assets addressed through the Host the browser used (already checked)."""
        if not await self._slot():
            return web.Response(status=503, text=too_many_page(self.max_desks), content_type="text/html")
        base = (self._explicit_public_url or f"{request.scheme}://{request.host}").rstrip("/")
        router = request.app.router
        websocket_path = router["websocket"].url_for()
        static_path = router["static"].url_for(filename="/")
        scheme, rest = base.split(":", 1)
        context: dict[str, Any] = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"{'wss' if scheme == 'https' else 'ws'}:{rest}{websocket_path}",
            "config": {"static": {"url": f"{base}{static_path}".rstrip("/") + "/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One desk per websocket while fewer than `max_desks` run; past that, a clear message and a close."""
        if self._desks >= self.max_desks:
            return await self._turn_away(request)
        self._desks += 1  # counted before the first await: parallel handshakes cannot overshoot
        try:
            return await self._run_desk(request)
        finally:
            self._desks -= 1
            self._freed.set()

    async def _turn_away(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse()
        await websocket.prepare(request)
        text = (
            f"\r\n  too many open desks: cutline runs at most {self.max_desks} at once.\r\n"
            "  Close another cutline tab, then reload this one.\r\n"
        )
        with contextlib.suppress(ConnectionError):
            await websocket.send_bytes(text.encode())
        await websocket.close(code=TOO_MANY_CLOSE_CODE, message=b"too many open desks")
        log.warning("turned a desk away: %d of %d open", self._desks, self.max_desks)
        return websocket

    async def _run_desk(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        service: DeskService | None = None
        self._sockets.add(websocket)
        try:
            await websocket.prepare(request)

            async def close() -> None:
                await websocket.close()

            service = DeskService(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            self._services.add(service)
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # a broken tab must not take the server down
            log.error("desk ended: %s: %s", type(error).__name__, one_line(str(error), 200))
        finally:
            self._sockets.discard(websocket)
            if service is not None:
                # shielded: a cancelled handler (server stopping) still ends its app process
                await asyncio.shield(service.stop())
                self._services.discard(service)
        return websocket


def _is_page_visit(request: web.Request) -> bool:
    """A GET of the desk page, as a person makes it in the address bar (not a websocket handshake, not an asset)."""
    return request.method == "GET" and request.path == "/" and request.headers.get("Upgrade", "").lower() != "websocket"
