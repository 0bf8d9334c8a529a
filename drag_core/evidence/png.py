"""PNG files of RGB images, written with zlib alone (no imaging library in the core), in bands of rows that are
compressed each on its own — so a page highlighted again re-compresses only the bands the highlight touches.

Each band of ``BAND_ROWS`` rows (filter type 0 on every row) is deflated and ended with a full flush, which
empties the compressor's window: the next band refers to nothing before it, so the deflate data of the bands
of the plain page can be reused, in order, beside the new data of the changed bands, and the whole still is one
zlib stream (header, the bands, an empty final block, the Adler-32 of all the rows). zlib level 1: on a rendered
10-K page (918 × 1188) ~11 ms and ~235 KiB for the whole page, where pillow's encoder took ~20 ms
(docs/benchmarks.md).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["BAND_ROWS", "PNG_LEVEL", "BandedPng"]

PNG_LEVEL = 1
BAND_ROWS = 64
_ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KiB window, the "fastest" level flag


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (
        struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    )


def _rows(pixels: np.ndarray) -> np.ndarray:
    """The image's PNG scanlines: a filter byte 0, then the row's RGB bytes."""
    height, width = pixels.shape[:2]
    rows = np.zeros((height, width * 3 + 1), dtype=np.uint8)
    rows[:, 1:] = np.ascontiguousarray(pixels, dtype=np.uint8).reshape(height, width * 3)
    return rows


def _deflate(rows: np.ndarray, level: int) -> bytes:
    """One band's raw deflate data, ended with a full flush (nothing after it refers back into it)."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(rows.tobytes()) + compressor.flush(zlib.Z_FULL_FLUSH)


def _file(width: int, height: int, bands: Iterable[bytes], rows: np.ndarray) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, RGB, deflate, no interlace
    final = zlib.compressobj(PNG_LEVEL, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)  # the empty last block
    data = _ZLIB_HEADER + b"".join(bands) + final + struct.pack(">I", zlib.adler32(rows.tobytes()))
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


class BandedPng:
    """One image's PNG, kept in compressed bands, written again with some rows changed.

    Attributes:
        bands: the deflate data of each band of the image as given.
        level: zlib level.
    """

    def __init__(self, pixels: np.ndarray, level: int = PNG_LEVEL) -> None:
        self.level = level
        rows = _rows(pixels)
        self.bands = [_deflate(rows[a : a + BAND_ROWS], level) for a in range(0, len(rows), BAND_ROWS)]
        self._png = _file(pixels.shape[1], pixels.shape[0], self.bands, rows)

    @property
    def png(self) -> bytes:
        """The PNG of the image as given."""
        return self._png

    def changed(self, pixels: np.ndarray, spans: Sequence[tuple[int, int]]) -> bytes:
        """The PNG of ``pixels``: the image given at first, but for the rows in ``spans`` ((first, last)
        row, inclusive) — only their bands are compressed again."""
        touched = {
            b for first, last in spans for b in range(max(0, first) // BAND_ROWS, last // BAND_ROWS + 1)
        }
        rows = _rows(pixels)
        bands = [
            _deflate(rows[i * BAND_ROWS : (i + 1) * BAND_ROWS], self.level) if i in touched else band
            for i, band in enumerate(self.bands)
        ]
        return _file(pixels.shape[1], pixels.shape[0], bands, rows)
