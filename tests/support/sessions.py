"""Large realistic pi sessions for store and CLI tests, made by the bench generator."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from tests.support.paths import ROOT


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_large_session", ROOT / "bench" / "gen_large_session.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def generate(path: Path, entries: int, seed: int = 3) -> Path:
    """A realistic pi v3 session of `entries` entries (the bench generator, small)."""
    _generator().generate(path, entries, seed)
    return path
