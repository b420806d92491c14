"""A compaction gives up in time: `cutline compact` against an API that never answers ends at its deadline."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from cutline.app.cli import main
from cutline.core.engine.deadline import DeadlineExceeded, within_deadline
from tests.golden_writeback.make_session import write_session
from tests.support.fake_anthropic import FakeAnthropic, Step, error_body, never_answers


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out, err


@pytest.fixture
def api(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> FakeAnthropic:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-deadline")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.base_url)
    # the deadline covers everything from the command's start, the SDK's import too (~10 s at load 12):
    # imported here, so the requests are sent within these tests' short deadlines
    import anthropic  # noqa: F401

    return fake_anthropic


def compact(capsys: pytest.CaptureFixture[str], tmp_path: Path, *flags: str) -> tuple[int, str, str]:
    session = write_session(tmp_path / "session.jsonl")
    return run(
        capsys,
        "compact",
        str(session),
        "--summarizer",
        "anthropic",
        "--keep-recent-tokens",
        "300",
        "--db",
        str(tmp_path / "c.db"),
        *flags,
    )


def test_compact_against_an_api_that_never_answers_stops_at_the_deadline(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, api: FakeAnthropic
) -> None:
    api.script(never_answers())
    # the deadline counts from the command's start: reading, planning and the client's set-up leave less for the
    # requests, so more than the 1.5 s this took when the deadline began at the first request (a loaded machine)
    code, out, err = compact(capsys, tmp_path, "--timeout", "5")
    assert code == 1 and out == ""
    assert err == (
        "cutline: the compaction did not finish within its 5 s deadline and was stopped "
        "(compaction.timeoutSeconds or --timeout sets it)\n"
    )
    assert api.message_requests(), "the requests were sent and left unanswered"


def test_the_deadline_comes_from_config_and_bounds_the_retries(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, api: FakeAnthropic, cutline_home: Path
) -> None:
    # the server asks for an hour's pause before a retry; the SDK would obey, the deadline does not wait
    wait_an_hour = Step(
        status=429, body=error_body(429, "rate_limit_error", "slow down"), headers={"retry-after": "3600"}
    )
    api.script([wait_an_hour] * 10)
    (cutline_home / "config.toml").write_text("[compaction]\ntimeoutSeconds = 1\n", encoding="utf-8")
    code, _, err = compact(capsys, tmp_path)
    assert code == 1
    assert err.startswith("cutline: the compaction did not finish within its 1 s deadline and was stopped")
    assert len(err.splitlines()) == 1


def test_the_per_request_timeout_comes_from_the_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, api: FakeAnthropic
) -> None:
    api.script(never_answers())
    code, _, err = compact(capsys, tmp_path, "--request-timeout", "0.2", "--timeout", "60")
    assert code == 1
    assert "timed out after 0.2s (3 attempts)" in err and len(err.splitlines()) == 1


async def test_within_deadline_cancels_the_work_and_keeps_inner_timeouts() -> None:
    cancelled = asyncio.Event()

    async def forever() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(DeadlineExceeded, match=re.escape("within its 0.05 s deadline")):
        await within_deadline(forever(), 0.05)
    assert cancelled.is_set()

    async def inner_timeout() -> None:
        await asyncio.wait_for(asyncio.Event().wait(), 0.01)

    with pytest.raises(TimeoutError):  # not the deadline's: passed on as it is
        await within_deadline(inner_timeout(), 60)
    assert await within_deadline(asyncio.sleep(0, result=7), 60) == 7


def test_the_deadline_covers_the_synchronous_work_before_the_first_request(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27 item 3: on a big session the reading and planning before any request took minutes past a 20 s
    `--timeout`; the deadline covers them. Here that work is a busy loop of 8 s against a 1 s deadline."""
    import time

    import cutline.core.workbench

    opening = cutline.core.workbench.open_for_plan
    spent: list[float] = []

    def slow_open(*args: object, **kwargs: object) -> object:
        began = time.monotonic()
        try:
            while time.monotonic() - began < 8:  # pure Python work, as rebuilding a long path is
                sum(range(1_000))
        finally:
            spent.append(time.monotonic() - began)
        return opening(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cutline.core.workbench, "open_for_plan", slow_open)
    session = write_session(tmp_path / "session.jsonl")
    db = tmp_path / "c.db"
    code, out, err = run(
        capsys, "compact", str(session), "--keep-recent-tokens", "300", "--timeout", "1", "--db", str(db)
    )
    assert code == 1 and out == ""
    assert err == (
        "cutline: the compaction did not finish within its 1 s deadline and was stopped "
        "(compaction.timeoutSeconds or --timeout sets it)\n"
    )
    assert spent and spent[0] < 6, f"stopped after {spent[0]:.1f} s"
    import sqlite3

    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM proposals").fetchone() == (0,), "nothing stored"


def test_the_whole_command_deadline_leaves_an_outer_timer_armed() -> None:
    """A test runner's own alarm (pytest-timeout's) outlives a `compact` run in-process: re-armed, not cancelled."""
    import signal

    from cutline.app.deadline import whole_deadline

    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 120)
        with whole_deadline(5):
            pass
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 100 < left <= 120, left
        with pytest.raises(DeadlineExceeded), whole_deadline(0.05):
            while True:
                sum(range(100))
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 100 < left <= 120, left
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        with whole_deadline(30):  # the outer timer comes first: it stays theirs
            signal.pause()
        assert fired == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_the_timer_firing_as_the_run_ends_still_says_the_deadline(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's own deadline and the whole command's timer have the same length: the timer can fire while the run's
    DeadlineExceeded unwinds the block, before the timer is disarmed. The command still ends with the deadline's line
    (it exited silently, code 1 and nothing on stderr: CI, 2026-12-03). Here the signal arrives just at the disarm."""
    import signal

    real = signal.setitimer
    before = signal.getsignal(signal.SIGALRM), signal.getitimer(signal.ITIMER_REAL)

    def late(which: int, seconds: float, interval: float = 0.0) -> tuple[float, float]:
        left = real(which, seconds, interval)
        handler = signal.getsignal(signal.SIGALRM)
        if seconds == 0 and callable(handler) and handler is not before[0]:
            handler(signal.SIGALRM, None)  # the whole deadline's timer, due as the block ends
        return left

    monkeypatch.setattr(signal, "setitimer", late)
    session = write_session(tmp_path / "session.jsonl")
    try:
        code, out, err = run(
            capsys,
            "compact",
            str(session),
            "--keep-recent-tokens",
            "300",
            "--timeout",
            "5",
            "--db",
            str(tmp_path / "c.db"),
        )
    finally:
        monkeypatch.undo()
        assert signal.getsignal(signal.SIGALRM) is before[0], "the previous handler is restored"
        signal.signal(signal.SIGALRM, before[0])
        if before[1][0]:
            signal.setitimer(signal.ITIMER_REAL, *before[1])
    assert code == 1 and out == ""
    assert err == (
        "cutline: the compaction did not finish within its 5 s deadline and was stopped "
        "(compaction.timeoutSeconds or --timeout sets it)\n"
    )
