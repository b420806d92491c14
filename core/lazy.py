"""Names a package hands on from its modules, imported when first asked for (PEP 562).

A command that uses one corner of a package (`ls`, `tokens` of a stored session) does not
import every module the package re-exports at start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
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
