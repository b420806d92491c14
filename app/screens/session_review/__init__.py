"""The review desk of one session (`ReviewScreen`), in parts: see `screen`."""

from __future__ import annotations

from cutline.app.screens.session_review.outward import download_stem, let_go
from cutline.app.screens.session_review.screen import ReviewScreen

__all__ = ["ReviewScreen", "download_stem", "let_go"]
