"""What the fuzzers share: one settings profile and input strategies.

Every fuzzer runs under the "adbwire-fuzz" profile: a bounded number of examples (the whole
directory runs in seconds on CI), no example database (nothing is written into the repo),
and a generous per-example deadline that only a pathological slowdown reaches. For a deeper
local run: `ADBWIRE_FUZZ_EXAMPLES=5000 pytest tests/fuzz`.
"""

from __future__ import annotations

import itertools
import os
from datetime import timedelta

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FUZZ_EXAMPLES = int(os.environ.get("ADBWIRE_FUZZ_EXAMPLES", "60"))

settings.register_profile(
    "adbwire-fuzz",
    max_examples=FUZZ_EXAMPLES,
    database=None,
    deadline=timedelta(seconds=5),
    derandomize=False,
    suppress_health_check=(HealthCheck.too_slow, HealthCheck.data_too_large),
)
FUZZ = settings(settings.get_profile("adbwire-fuzz"))
"""Decorator: `@FUZZ` above `@given(...)`."""

MAX_FUZZ_INPUT = 4096
"""Random inputs stay small, so that a result's size can be held against the input's."""


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes], *, max_edits: int = 8) -> bytes:
    """One of `seeds` with a few random edits: bytes replaced, spans deleted, duplicated or
    inserted, or the end cut off. Keeps most of the real structure, so a parser gets deep."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, max_edits))):
        size = len(data)
        at = draw(st.integers(0, size))
        kind = draw(st.sampled_from(("replace", "delete", "insert", "duplicate", "truncate")))
        if kind == "replace" and size:
            data[min(at, size - 1)] = draw(st.integers(0, 255))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        elif kind == "insert":
            data[at:at] = draw(st.binary(max_size=32))
        elif kind == "duplicate":
            span = bytes(data[at : at + draw(st.integers(1, 256))])
            data[at:at] = span * draw(st.integers(1, 4))
        elif kind == "truncate":
            del data[at:]
    return bytes(data)


def mutated_text(seeds: list[str], *, max_edits: int = 8) -> st.SearchStrategy[str]:
    """`mutated` for text: edits on the UTF-8 bytes, decoded with replacement."""
    raw = [seed.encode() for seed in seeds]
    return mutated(raw, max_edits=max_edits).map(lambda data: data.decode("utf-8", "replace"))


def small_bytes() -> st.SearchStrategy[bytes]:
    return st.binary(max_size=MAX_FUZZ_INPUT)


def split_points(data_size: int) -> st.SearchStrategy[list[int]]:
    """Sorted cut positions inside a byte string (how a stream may deliver it)."""
    return st.lists(st.integers(0, data_size), max_size=8).map(sorted)


def pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *cuts, len(data)]
    return [data[start:end] for start, end in itertools.pairwise(bounds)]
