"""docs/ARCHITECTURE.md keeps a line for every package of core/ and app/ (and every top-level module of core/), and none for a package gone."""

from __future__ import annotations

import re

from tests.support.paths import ROOT

MAP = ROOT / "docs" / "ARCHITECTURE.md"


def _listed() -> set[str]:
    """The dotted names in the map's tables' first column."""
    return set(re.findall(r"^\| `([a-z0-9_.]+)` \|", MAP.read_text(encoding="utf-8"), re.M))


def _packages() -> set[str]:
    """Every package of core/ and app/ as a dotted name, and core's top-level modules named in the map's rule."""
    found = set()
    for top in ("core", "app"):
        for init in (ROOT / top).rglob("__init__.py"):
            found.add(".".join(init.parent.relative_to(ROOT).parts))
    found |= {
        "core.choices",
        "core.agent_releases",
        "core.review",
        "core.session_writes",
    }  # core's modules that are seams of their own
    return found


def test_every_package_has_a_line_in_the_architecture_map() -> None:
    missing = sorted(_packages() - _listed())
    assert missing == [], f"add a line to docs/ARCHITECTURE.md for: {', '.join(missing)}"


def test_the_map_lists_no_package_that_is_gone() -> None:
    gone = sorted(
        name
        for name in _listed()
        if not (ROOT / name.replace(".", "/")).exists() and not (ROOT / (name.replace(".", "/") + ".py")).exists()
    )
    assert gone == [], f"docs/ARCHITECTURE.md names what no longer exists: {', '.join(gone)}"
