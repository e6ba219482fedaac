"""What every sync call can be told, and its defaults: the compression choice and the
bounds of a pull. A module of its own so `AdbClient` can name them in its signatures
without loading the sync package's modules (`adbwire -s S shell` never needs them, #20)."""

from __future__ import annotations

import enum
from typing import Final

__all__ = [
    "COMPRESSION_FLAGS",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_RATE_GRACE",
    "Compression",
]

DEFAULT_MAX_ENTRIES: Final = 250_000
"""Most directory entries one pull walks (all its trees together)."""
DEFAULT_MAX_DEPTH: Final = 256
"""Deepest directory nesting followed (also stops link loops on v1 devices, which lack
inodes)."""
DEFAULT_RATE_GRACE: Final = 30.0
"""Seconds each file gets on top of its size over `min_rate` (a slow start, a busy disk)."""


class Compression(enum.Enum):
    NONE = "none"
    ANY = "any"
    """The best the device offers (zstd, then lz4, then brotli), or none: adb's -z any."""
    BROTLI = "brotli"
    LZ4 = "lz4"
    ZSTD = "zstd"

    @property
    def flag(self) -> int:
        """The SND2/RCV2 setup flag (file_sync_protocol.h SyncFlag)."""
        return COMPRESSION_FLAGS.get(self, 0)

    @property
    def feature(self) -> str:
        return f"sendrecv_v2_{self.value}"


COMPRESSION_FLAGS: Final = {Compression.BROTLI: 1, Compression.LZ4: 2, Compression.ZSTD: 4}
