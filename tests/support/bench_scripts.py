"""A script of bench/ loaded as a module, for tests of what it computes (bench/ is not a package)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.support.paths import ROOT


def bench_script(name: str) -> ModuleType:
    """bench/NAME.py as the module NAME (registered first: its dataclasses look their module up while it loads)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module
