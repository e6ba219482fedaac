"""How much of the log a crash report keeps: the device writes the log, and a hostile one can
log lines of megabytes or stacks of thousands of lines. A report keeps bounded lines and a
bounded stack, and says what it cut (a visible mark), never drops text silently."""

from __future__ import annotations

from collections.abc import Sequence

MAX_LINE_CHARS = 400
"""Characters kept of each stack line and of a crash's messages (a real frame takes 60-250)."""
MAX_STACK_LINES = 256
"""Lines kept of a Java crash's stack (a StackOverflowError logs over a thousand)."""
MAX_FRAMES = 64
"""Frames kept of a native crash's backtrace."""


def capped_line(line: str, limit: int = MAX_LINE_CHARS) -> str:
    """`line`, or its first `limit` characters and a mark saying how many more it had."""
    if len(line) <= limit:
        return line
    return f"{line[:limit]} [... {len(line) - limit} more chars cut]"


def lines_cut_mark(count: int) -> str:
    """The line that stands for `count` stack lines left out."""
    return f"[... {count} more lines cut]"


def kept_lines(lines: Sequence[str], limit: int) -> tuple[tuple[str, ...], int]:
    """The first `limit` of `lines`, each capped, and how many lines were left out."""
    return tuple(capped_line(line) for line in lines[:limit]), max(0, len(lines) - limit)


def shown_stack(stack: Sequence[str], cut: int, max_lines: int) -> tuple[str, ...]:
    """At most `max_lines` of a kept stack (stripped), then a mark counting every line left
    out: here, and the `cut` ones the parser left out already."""
    shown = tuple(line.strip() for line in stack[:max_lines])
    left_out = max(0, len(stack) - max_lines) + cut
    return (*shown, lines_cut_mark(left_out)) if left_out else shown
