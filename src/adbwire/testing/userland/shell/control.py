"""Compound commands and functions: `if`, `while`/`until`, `for`, `select`, `case`, function calls,
and the jumps out of them (`break N`, `continue N`, `return N`).

A jump is an exception the loop or the function call catches: `break 2` leaves two loops,
`return` leaves the innermost function (its `local` variables are restored then).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adbwire.shell_syntax.parser import Case, For, FunctionDef, If, Loop, Script
from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.shell import variables
from adbwire.testing.userland.shell.expand import expand_single, expand_words, matches

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = [
    "FunctionReturn",
    "LoopControl",
    "call_function",
    "run_case",
    "run_for",
    "run_if",
    "run_loop",
    "run_select",
]


class LoopControl(Exception):
    """`break N` / `continue N`: leave (or restart) the N-th enclosing loop."""

    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind, levels)
        self.kind = kind
        self.levels = levels


class FunctionReturn(Exception):
    """`return N` inside a function (or a script read by `.`)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def run_if(shell: Shell, command: If, streams: Streams) -> int:
    for cond, body in command.branches:
        if condition(shell, cond, streams) == 0:
            return shell.run_script(body, streams)
    return shell.run_script(command.orelse, streams) if command.orelse else 0


def condition(shell: Shell, script: Script, streams: Streams) -> int:
    """An if/while/until condition, where errexit does not apply."""
    shell.condition_depth += 1
    try:
        return shell.run_script(script, streams)
    finally:
        shell.condition_depth -= 1


def _body(shell: Shell, body: Script, streams: Streams) -> tuple[int, bool]:
    """Run a loop body once: its status, and whether the loop must stop."""
    shell.loop_depth += 1
    try:
        return shell.run_script(body, streams), False
    except LoopControl as jump:
        if jump.levels > 1:
            jump.levels -= 1
            raise
        return 0, jump.kind == "break"
    finally:
        shell.loop_depth -= 1


def run_loop(shell: Shell, loop: Loop, streams: Streams) -> int:
    status = 0
    while not shell.cancelled():
        if (condition(shell, loop.cond, streams) == 0) == loop.until:
            break
        status, stop = _body(shell, loop.body, streams)
        if stop:
            break
    return status


def run_for(shell: Shell, loop: For, streams: Streams) -> int:
    items = (
        list(shell.positional)
        if loop.items is None
        else expand_words(shell, loop.items, shell.listdir, shell.cwd)
    )
    if loop.select:
        return run_select(shell, loop, items, streams)
    status = 0
    for item in items:
        if shell.cancelled():
            break
        shell.set_var(loop.var, item)
        status, stop = _body(shell, loop.body, streams)
        if stop:
            break
    return status


MAX_MENU_LINE = 4096
"""Bytes `select` reads for one answer."""


def _menu(items: list[str], columns: int) -> bytes:
    """`N) ITEM` entries as mksh lays them out: down the columns, as many columns as fit in
    `columns` characters but no more than rows, the last entry of a row unpadded."""
    if not items:
        return b""
    width = len(str(len(items)))
    entries = [f"{n:>{width}}) {item}" for n, item in enumerate(items, 1)]
    widest = width + 2 + max(len(item) for item in items)
    count = (columns + 1) // (widest + 2)
    if count < 2:
        return "".join(entry + "\n" for entry in entries).encode()
    rows = -(-len(entries) // count)
    if count > rows:
        count = rows
        rows = -(-len(entries) // count)
    gap = max((columns - widest * count) // count, 2)
    lines = []
    for row in range(rows):
        cells = [entries[i] for i in range(row, len(entries), rows)][:count]
        lines.append("".join(cell.ljust(widest + gap) for cell in cells[:-1]) + cells[-1])
    return "".join(line + "\n" for line in lines).encode()


def _answer(streams: Streams) -> str | None:
    """One line of input (None at its end, even after an unfinished line)."""
    line = bytearray()
    while len(line) < MAX_MENU_LINE:
        byte = streams.stdin.read(1)
        if not byte:
            return None
        if byte == b"\n":
            break
        line += byte
    return line.decode("utf-8", "replace")


def run_select(shell: Shell, loop: For, items: list[str], streams: Streams) -> int:
    """mksh's `select`: the numbered menu ($COLUMNS wide, 80 unset) and the PS3 prompt
    (`#? `) on stderr, then each
    line read sets REPLY and NAME (the item it numbers, else empty) and runs the body; an
    empty line shows the menu again; the end of input ends it with status 1."""
    columns_text = shell.get_var("COLUMNS") or ""
    columns = int(columns_text) if columns_text.isdigit() and int(columns_text) > 0 else 80
    streams.stderr.write(_menu(items, columns))
    while not shell.cancelled():
        prompt = shell.get_var("PS3")
        streams.stderr.write(("#? " if prompt is None else prompt).encode())
        reply = _answer(streams)
        if reply is None:
            return 1
        if not reply.strip():
            streams.stderr.write(_menu(items, columns))
            continue
        shell.set_var("REPLY", reply)
        choice = reply.strip()
        picked = choice.isdigit() and 1 <= int(choice) <= len(items)
        shell.set_var(loop.var, items[int(choice) - 1] if picked else "")
        status, stop = _body(shell, loop.body, streams)
        if stop:
            return status
    return 1


def run_case(shell: Shell, command: Case, streams: Streams) -> int:
    """The body of the first pattern the word matches (patterns glob; quoted parts do not),
    and the next body after `;&`, the next match after `;|`."""
    value = expand_single(shell, command.word)
    status = 0
    falling = False  # the previous body ended with `;&`
    for (patterns, body), end in zip(command.items, command.ends, strict=True):
        if falling or any(matches(shell, pattern, value) for pattern in patterns):
            status = shell.run_script(body, streams)
            if end == ";;":
                return status
            falling = end == ";&"
    return status


def call_function(shell: Shell, function: FunctionDef, argv: list[str], streams: Streams) -> int:
    """Run a function with its own positional parameters and `local` variables."""
    if len(shell.frames) >= MAX_CALL_DEPTH:
        raise RecursionLimit(f"{argv[0]}: too many nested function calls")
    saved_positional, saved_loops = list(shell.positional), shell.loop_depth
    shell.set_positional(argv[1:])
    shell.frames.append({})
    shell.loop_depth = 0  # `break` in a function does not leave the caller's loop
    try:
        return shell.run_command(function.body, streams)
    except FunctionReturn as returned:
        return returned.status
    finally:
        for name, old in shell.frames.pop().items():
            variables.restore(shell, name, old)
        shell.set_positional(saved_positional)
        shell.loop_depth = saved_loops


MAX_CALL_DEPTH = 40
"""Nested function calls before the shell gives up (a runaway recursion), well inside
Python's own recursion limit."""


class RecursionLimit(Exception):
    """Functions called each other too deeply; the message follows `sh: `."""
