"""Entry counts run one at a time: a cursor crossing rows while the desk loads builds one tiktoken encoder, not one per row."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from cutline.app.screens.session_review import ReviewScreen
from cutline.core import tokens as tokens_mod
from tests.support.tui_app import SIZE, settle, test_app, write_session


async def test_entry_counts_started_together_build_one_encoder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken

    built: list[int] = []
    real = tiktoken.Encoding

    class SlowEncoding(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built.append(threading.get_ident())
            time.sleep(0.2)  # long enough that the other workers arrive while it is built
            super().__init__(*args, **kwargs)

    app = test_app(tmp_path / "store.db", str(write_session(tmp_path / "ledger.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        monkeypatch.setattr(tiktoken, "Encoding", SlowEncoding)
        tokens_mod.cl100k_encoding.cache_clear()
        try:
            for index in range(
                4
            ):  # four cursor moves 50 ms apart: each cancels the worker before, whose thread runs on
                screen.count_entry(index)
                await pilot.pause(0.05)
            for _ in range(100):  # the last one's counts arrive once an encoder is built
                await pilot.pause(0.05)
                if (3, "tiktoken") in screen._entry_counts:
                    break
            await pilot.pause(0.3)  # any other worker building its own has started by now
        finally:
            tokens_mod.cl100k_encoding.cache_clear()
        assert len(built) == 1, f"{len(built)} encoders built"
