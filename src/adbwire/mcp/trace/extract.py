"""What a trace keeps of one call's result: pure functions over the envelope's JSON.

The result is copied with bounds (strings, lists, depth), typed secrets are scrubbed from
everything the device sent back, and the viewer's facts are picked out: the point or element
acted on, the logcat slice, whether the app crashed. What a result sends once as text
(after the JSON line of its text block, or in a block of its own) is kept too, bounded: log
lines as the step's log, the rest as its text (`payload_parts`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from adbwire.mcp.trace.format import CRASH_CODES

MAX_STRING = 8_000
MAX_ITEMS = 200
MAX_DEPTH = 8
MAX_LOG_LINES = 100
MAX_LOG_LINE = 500
MAX_TREE = 32_000
MAX_TEXT = 16_000
LOG_PAYLOAD_TOOLS = frozenset({"read_logcat"})
"""Tools whose payload after the JSON line is log lines."""
LOG_BLOCK = "log:\n"
"""How a text block of log lines begins (debug_context's)."""
REDACTED = "<redacted>"
MIN_SECRET = 3
"""Shorter typed values are not searched for (a "1" would blank every digit)."""
_BOUNDS = re.compile(r"\[(-?\d{1,6}),(-?\d{1,6})\]\[(-?\d{1,6}),(-?\d{1,6})\]")
_ELEMENT_KEYS = ("target", "field", "element")
_LOG_KEYS = ("log", "logcat", "log_slice")


def bounded(value: Any, depth: int = 0) -> Any:
    """A JSON copy of `value` no larger than the bounds allow (shortened, marked so)."""
    if isinstance(value, str):
        return value if len(value) <= MAX_STRING else value[:MAX_STRING] + "\u2026(cut)"
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth >= MAX_DEPTH:
        return "\u2026(nested too deep)"
    if isinstance(value, Mapping):
        items = list(value.items())
        copy = {str(k): bounded(v, depth + 1) for k, v in items[:MAX_ITEMS]}
        if len(items) > MAX_ITEMS:
            copy["\u2026"] = f"{len(items) - MAX_ITEMS} more keys"
        return copy
    if isinstance(value, (list, tuple)):
        kept = [bounded(v, depth + 1) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            kept.append(f"\u2026{len(value) - MAX_ITEMS} more")
        return kept
    return bounded(str(value), depth)


def secret_values(arguments: Mapping[str, Any], secret_args: Iterable[str]) -> list[str]:
    """The typed secrets of a call in the forms the device may echo them back: as typed,
    as a JSON string body (how the compact tree quotes text), longest first."""
    found: set[str] = set()
    for name in secret_args:
        value = arguments.get(name)
        if isinstance(value, str) and len(value) >= MIN_SECRET:
            found.add(value)
            found.add(json.dumps(value, ensure_ascii=False)[1:-1])
    return sorted(found, key=len, reverse=True)


def scrub(value: Any, secrets: list[str]) -> Any:
    """`value` with every secret replaced by `REDACTED`, at any depth."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {key: scrub(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [scrub(item, secrets) for item in value]
    return value


def _ints(value: Any, count: int) -> list[int] | None:
    if (
        isinstance(value, list)
        and len(value) == count
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return value
    return None


def target(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """Where the call acted: a point (tap, a one-point gesture), a path (swipe, drag), or an
    element's bounds (the compact tree's ``[l,t][r,b]`` in the element line an action
    answers with)."""
    found: dict[str, Any] = {}
    point = _ints([data.get("x"), data.get("y")], 2)
    if point is not None:
        found["point"] = point
    path = _ints(data.get("points"), 4)
    if path is not None:
        found["path"] = path
    spot = _ints(data.get("points"), 2)  # a gesture at one point (double tap, long press)
    if spot is not None:
        found.setdefault("point", spot)
    for key in _ELEMENT_KEYS:
        line = data.get(key)
        match = _BOUNDS.search(line) if isinstance(line, str) else None
        if match is not None:
            left, top, right, bottom = (int(group) for group in match.groups())
            found["bounds"] = [left, top, right, bottom]
            found["element"] = line
            found.setdefault("point", [(left + right) // 2, (top + bottom) // 2])
            break
    return found or None


def log_slice(data: Mapping[str, Any], error: Mapping[str, Any] | None = None) -> list[str] | None:
    """The logcat lines an action outcome carries (``log``, ``log_more``), bounded: from the
    result, or from a failure's details (a crash's error holds the outcome there)."""
    places: list[Any] = [data]
    details = error.get("details") if error is not None else None
    if isinstance(details, Mapping):
        places += [details, details.get("outcome")]
    for place in places:
        if not isinstance(place, Mapping):
            continue
        for key in _LOG_KEYS:
            value = place.get(key)
            if isinstance(value, str):
                value = value.splitlines()
            if isinstance(value, list) and value:
                lines = [str(line)[:MAX_LOG_LINE] for line in value[:MAX_LOG_LINES]]
                more = len(value) - len(lines)
                if isinstance(place.get("log_more"), int):
                    more += place["log_more"]
                if more > 0:
                    lines.append(f"\u2026 {more} more lines")
                return lines
    return None


def payload_parts(
    tool: str, blocks: list[str], *, tree_kept: bool = False
) -> tuple[list[str] | None, str | None]:
    """The log lines and the other text a success sent once as text, from its text blocks:
    what follows the summary and JSON lines of the first (the UI tree when `tree_kept`:
    the step has it already), and each later block (``stderr:``, ``log:``)."""
    log: list[str] | None = None
    texts: list[str] = []
    parts = blocks[0].split("\n", 2) if blocks else []
    first = parts[2] if len(parts) == 3 else ""
    if first and tool in LOG_PAYLOAD_TOOLS:
        log = newest_lines(first)
    elif first and not tree_kept:
        texts.append(first)
    for block in blocks[1:]:
        if block.startswith(LOG_BLOCK) and log is None:
            log = newest_lines(block[len(LOG_BLOCK) :])
        else:
            texts.append(block)
    return log, (bounded_join(texts) if texts else None)


def newest_lines(text: str) -> list[str]:
    """The last `MAX_LOG_LINES` lines of a log (the newest), each cut, after a line saying
    how many earlier ones were left out."""
    lines = text.rsplit("\n", MAX_LOG_LINES)
    earlier = 0
    if len(lines) > MAX_LOG_LINES:
        earlier = text.count("\n") - (MAX_LOG_LINES - 1)
        lines = lines[1:]
    kept = [line[:MAX_LOG_LINE] for line in lines]
    return [f"\u2026 {earlier} earlier lines", *kept] if earlier else kept


def bounded_join(texts: list[str]) -> str:
    """`texts` a line apart, cut at `MAX_TEXT` characters (saying how many more there were),
    without joining more than that."""
    total = sum(map(len, texts)) + len(texts) - 1
    kept: list[str] = []
    room = MAX_TEXT
    for text in texts:
        if room <= 0:
            break
        kept.append(text[:room])
        room -= len(text) + 1
    joined = "\n".join(kept)[:MAX_TEXT]
    return joined if total <= MAX_TEXT else f"{joined}\u2026(cut: {total - len(joined)} more)"


def crashed(error: Mapping[str, Any] | None, data: Mapping[str, Any]) -> bool:
    """Whether the call ended in (or reported) an app crash or ANR."""
    if error is not None and error.get("code") in CRASH_CODES:
        return True
    return bool(data.get("crash") or data.get("crashed"))
