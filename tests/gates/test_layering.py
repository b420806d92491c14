"""core must never depend on the UI: it imports cleanly with textual and app unavailable."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.support.paths import ROOT


def test_core_sources_never_import_textual_or_app() -> None:
    offenders = []
    for path in (ROOT / "core").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in {"textual", "rich"} or name.startswith("cutline.app"):
                    offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_core_imports_with_textual_blocked() -> None:
    code = (
        "import sys, importlib, pkgutil\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'textual' or name.startswith('cutline.app'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import cutline.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'cutline.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
