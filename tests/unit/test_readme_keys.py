"""The README's key table is the bindings' own (issue 27, item 23): a key changed in code fails here until regenerated."""

from __future__ import annotations

from cutline.app.keys_table import key_table, readme_table
from tests.support.paths import ROOT


def test_the_readme_key_table_is_made_from_the_bindings() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_table(readme) == key_table(), "run: python -m cutline.app.keys_table --write README.md"


def test_the_table_names_every_key_a_newcomer_missed() -> None:
    table = key_table()
    for key in ("`w`", "`{`", "`}`", "`q`", "`j`", "`[`", "`]`", "`.`"):
        assert f"| {key} " in table or f" / {key} " in table or f"{key} |" in table, key
