"""`core.agents.formats` tells a record's agent as the adapters do, without importing any agent's package."""

from __future__ import annotations

import json
from typing import get_args

from cutline.core.agents import formats, registry
from cutline.core.agents.registry import ADAPTERS, AGENT_PACKAGES, adapter_for, detect
from cutline.core.models import EntryType
from tests.support.fresh_python import fresh_python
from tests.support.session_files import SESSION_FILES


def test_the_detectors_are_the_adapters_in_the_sniffers_order() -> None:
    assert tuple(fmt for fmt, _ in formats.DETECTORS) == tuple(AGENT_PACKAGES)
    assert tuple(adapter.format for adapter in ADAPTERS) == tuple(AGENT_PACKAGES)
    assert all(adapter_for(fmt).format == fmt for fmt in AGENT_PACKAGES)


def test_pis_entry_types_are_the_models_but_other() -> None:
    assert set(formats.PI_ENTRY_TYPES) == set(get_args(EntryType)) - {"other"}


def _records() -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for path in SESSION_FILES:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
    # shapes the files may not hold: an OpenClaw header, a bare early-Codex item, a record of no agent
    found += [
        {"type": "session", "version": 4, "id": "x"},
        {"type": "session", "version": True, "id": "x"},
        {"type": "function_call", "name": "shell"},
        {"id": "r", "instructions": "", "timestamp": "t"},
        {"type": "unknown", "uuid": "u"},
        {},
    ]
    return found


def test_every_record_is_told_as_the_first_adapter_that_claims_it_tells_it() -> None:
    records = _records()
    assert len(records) > 1000  # the check sees the sample and fixture files
    told: set[str | None] = set()
    for record in records:
        claimed = next((adapter.format for adapter in ADAPTERS if adapter.detect(record)), None)
        assert formats.detect_format(record) == claimed, record
        found = detect(record)
        assert (found.format if found is not None else None) == claimed
        told.add(claimed)
    assert told == {"codex", "qwen_code", "claude_code", "openclaw", "pi", None}


def test_telling_a_files_format_or_asking_one_adapter_imports_no_other_agent() -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from cutline.core.agents.formats import head_format\n"
        "from cutline.core.agents.registry import adapter_for\n"
        f"fmt = head_format(Path({str(SESSION_FILES[0])!r}))\n"
        "before = sorted(p for p in ('pi', 'codex', 'claude_code', 'openclaw', 'opencode', 'qwen_code')"
        " if 'cutline.core.agents.' + p in sys.modules)\n"
        "adapter_for('codex')\n"
        "after = sorted(p for p in ('pi', 'codex', 'claude_code', 'openclaw', 'opencode', 'qwen_code')"
        " if 'cutline.core.agents.' + p in sys.modules)\n"
        "print(before, after)\n"
    )
    out = fresh_python(code)
    assert out.split() == ["[]", "['codex']"]


def test_the_registry_names_no_attribute_but_adapters_lazily() -> None:
    try:
        registry.NO_SUCH_NAME  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError:
        pass
    else:
        raise AssertionError("registry answered an unknown name")
