"""Names a package hands on from its modules, imported when first asked for (PEP 562).

A command that uses one corner of a package (`ls`, `tokens` of a stored session) does not
import every module the package re-exports at start-up.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any


def lazy_names(package: str, table: dict[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: a name of `table` is imported from its module on first use and kept in
    `namespace` (the package's globals); any other name is an AttributeError, so submodules import as usual."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__


class _Forwarder(ModuleType):
    """Stands in for a module not yet imported: the first attribute read imports it and every read goes to it."""

    def __getattr__(self, attr: str) -> Any:
        if sys.modules.get(self.__name__) is self:  # read while it still stands in: import the real one in its place
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


def import_deferring(name: str, deferred: str) -> ModuleType:
    """Import module `name` while `deferred`, which it imports at its top, is not imported (unless it already is).

    Why: pydantic-settings imports asyncio (~40 ms) for `CliApp.run` alone, which cutline never
    calls. While `name` is imported, `deferred` is a stand-in that imports the real module the
    first time one of its attributes is read; afterwards `sys.modules` holds no `deferred`, so
    any other `import` of it is the real import.
    """
    if deferred in sys.modules:
        return importlib.import_module(name)
    stand_in = _Forwarder(deferred)
    sys.modules[deferred] = stand_in
    try:
        return importlib.import_module(name)
    finally:
        if sys.modules.get(deferred) is stand_in:
            del sys.modules[deferred]
