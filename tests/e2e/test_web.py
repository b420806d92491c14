"""Web mode end to end: `cutline serve` on a loopback port, driven by a real headless Chromium."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from cutline.app.commands.serve import app_command, is_loopback
from tests.support.browser import CHROMEDRIVER, CHROMIUM, require_browser
from tests.support.paths import ROOT, SAMPLES

# Recorded in the page before textual's own script runs: every frame the server sends
# over the websocket is the app's terminal output, so the page's text can be read back.
RECORD_TERMINAL = r"""
window.__cutlineTerminal = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new NativeWebSocket(...args);
  ws.addEventListener('message', (event) => {
    if (event.data instanceof ArrayBuffer) {
      window.__cutlineTerminal.push(new TextDecoder().decode(event.data));
    } else if (event.data instanceof Blob) {
      event.data.arrayBuffer().then((b) => window.__cutlineTerminal.push(new TextDecoder().decode(b)));
    } else {
      window.__cutlineTerminal.push(String(event.data));
    }
  });
  return ws;
};
window.WebSocket.prototype = NativeWebSocket.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""

TOKEN = "test-token-for-the-browser"

ESCAPES = re.compile(r"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b[\]P_][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_http(url: str, deadline: float) -> None:
    """Wait until the server answers (the tokened URL redirects to a page that needs the cookie urllib drops)."""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except urllib.error.HTTPError as error:
            if error.code == 403:
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("192.0.2.10")


def test_serve_refuses_a_public_address_without_the_flag(cutline_home: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cutline.app.cli", "serve", "--host", "0.0.0.0", "--port", str(_free_port())],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "refusing to bind 0.0.0.0" in result.stderr
    assert "--allow-remote" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_serve_warns_when_binding_a_public_address(cutline_home: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cutline.app.cli",
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--allow-remote",
            "--no-browser",
            "--token",
            TOKEN,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_http(f"http://127.0.0.1:{port}/?token={TOKEN}", time.monotonic() + 30)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "Anyone who can reach this port and holds the token can" in err


def test_each_tab_runs_the_app_as_its_own_process() -> None:
    command = app_command("pi-branched")
    assert command.endswith("-m cutline.app.cli open pi-branched")
    assert command.startswith(sys.executable)


@pytest.fixture
def served(cutline_home: Path) -> Iterator[str]:
    """A `cutline serve` on a free loopback port with one sample imported."""
    imported = subprocess.run(
        [sys.executable, "-m", "cutline.app.cli", "import", str(SAMPLES / "pi-branched.jsonl")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert imported.returncode == 0, imported.stderr
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cutline.app.cli", "serve", "--port", str(port), "--no-browser", "--token", TOKEN],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "CUTLINE_HOME": str(cutline_home)},
    )
    try:
        url = f"http://127.0.0.1:{port}/?token={TOKEN}"
        _wait_http(url, time.monotonic() + 60)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.mark.e2e
def test_browser_shows_the_sessions_screen_then_the_review_screen(served: str, tmp_path: Path) -> None:
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,900",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        downloads = tmp_path / "downloads"
        downloads.mkdir()
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_TERMINAL})
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
        driver.get(served)

        def screen_text() -> str:
            frames = driver.execute_script("return window.__cutlineTerminal || []")
            return ESCAPES.sub("", "".join(frames))

        def wait_for(needle: str, seconds: float = 60) -> str:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                text = screen_text()
                if needle in text:
                    return text
                time.sleep(0.25)
            raise AssertionError(f"{needle!r} never appeared; the page showed: {screen_text()[-2000:]!r}")

        wait_for("cutline — sessions")
        wait_for("1 of 1 sessions")  # the imported sample is listed
        driver.save_screenshot(str(tmp_path / "sessions.png"))
        # keys go to the terminal's input element
        driver.find_element(By.TAG_NAME, "body").click()
        driver.find_element(By.CSS_SELECTOR, "textarea").send_keys("\n")
        wait_for("keepRecentTokens")
        wait_for("entries on the active path")
        # the exported session arrives as a browser download, byte for byte
        driver.find_element(By.CSS_SELECTOR, "textarea").send_keys("E")
        deadline = time.monotonic() + 60
        done: list[Path] = []
        while time.monotonic() < deadline and not done:
            done = [p for p in downloads.iterdir() if p.suffix == ".jsonl"]
            time.sleep(0.25)
        assert done, f"no download arrived; the folder holds {list(downloads.iterdir())}"
        assert done[0].read_bytes() == (SAMPLES / "pi-branched.jsonl").read_bytes()
    finally:
        driver.quit()
