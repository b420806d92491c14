"""Counting the reads of a whole session: `Sessions.load` and `Importer.import_and_read`, for tests that a path avoids them."""

from __future__ import annotations

from typing import Any

import pytest

from cutline.core.store.importer import Importer
from cutline.core.store.sessions import Sessions


def count_whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A list that gets "load" or "import_and_read" each time a session is read whole (the originals still run)."""
    whole: list[str] = []
    load, read = Sessions.load, Importer.import_and_read

    def loading(self: Sessions, ref: str) -> Any:
        whole.append("load")
        return load(self, ref)

    def reading(self: Importer, *args: Any, **kwargs: Any) -> Any:
        whole.append("import_and_read")
        return read(self, *args, **kwargs)

    monkeypatch.setattr(Sessions, "load", loading)
    monkeypatch.setattr(Importer, "import_and_read", reading)
    return whole
