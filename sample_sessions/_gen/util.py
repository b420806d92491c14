"""Small deterministic helpers shared by the sample generators."""

from __future__ import annotations

import base64
import struct
import zlib


def png_chart(width: int = 48, height: int = 24, bars: tuple[int, ...] = (3, 4, 4, 5, 6, 22, 23, 9, 5, 4, 4, 3)) -> str:
    """A tiny bar-chart PNG (requests per minute with a spike), base64-encoded."""
    bar_w = max(1, width // len(bars))
    top = max(bars)
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter type: none
        for x in range(width):
            i = min(len(bars) - 1, x // bar_w)
            h = round(bars[i] / top * (height - 2))
            filled = (height - 1 - y) < h and x % bar_w != bar_w - 1
            if filled:
                row += bytes((220, 60, 50)) if bars[i] > top * 0.6 else bytes((70, 130, 200))
            elif y == height - 1:
                row += bytes((40, 40, 40))
            else:
                row += bytes((250, 250, 250))
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9))
    png += chunk(b"IEND", b"")
    return base64.b64encode(png).decode("ascii")


def numbered(text: str) -> str:
    """Prefix each line with its number, like `cat -n`."""
    return "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(text.split("\n"), 1))
