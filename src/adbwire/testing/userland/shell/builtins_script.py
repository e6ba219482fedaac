"""Built-ins scripts lean on: local/typeset/readonly/export/unset (typeset.py), return,
break, continue, getopts, let, `.`/source, ulimit, print and test/[, in mksh's formats
and exit codes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.shell.arith import ArithmeticFailure, evaluate
from adbwire.testing.userland.shell.builtins import SHELL_PATH, ExitShell
from adbwire.testing.userland.shell.control import FunctionReturn, LoopControl
from adbwire.testing.userland.shell.testexpr import test
from adbwire.testing.userland.shell.typeset import export, readonly, typeset, unset
from adbwire.testing.userland.shell.ulimit import ulimit

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["SCRIPT_BUILTINS", "SPECIAL_BUILTINS"]

SPECIAL_BUILTINS = frozenset(
    (".", ":", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return",
     "set", "shift", "source", "times", "trap", "typeset", "unset")
)  # fmt: skip
"""POSIX's special built-ins: found before functions, and their errors end the shell."""


def _error(streams: Streams, message: str) -> None:
    streams.stderr.write(f"{SHELL_PATH}: {message}\n".encode())


def _count(streams: Streams, argv: list[str]) -> int | None:
    if len(argv) < 2:
        return 1
    if argv[1].isdigit() and int(argv[1]) > 0:
        return int(argv[1])
    _error(streams, f"{argv[0]}: {argv[1]}: bad number")
    return None


def _return(shell: Shell, argv: list[str], streams: Streams) -> int:
    status = shell.last_status
    if len(argv) > 1:
        try:
            status = int(argv[1]) & 0xFF
        except ValueError:
            _error(streams, f"return: {argv[1]}: bad number")
            status = 1
    if shell.frames or shell.sourcing:
        raise FunctionReturn(status)
    raise ExitShell(status)  # outside a function, as mksh: the script ends


def _loop_jump(shell: Shell, argv: list[str], streams: Streams) -> int:
    levels = _count(streams, argv)
    if levels is None:
        raise ExitShell(1)
    if not shell.loop_depth:
        _error(streams, f"{argv[0]}: can't {argv[0]}")
        return 0
    raise LoopControl(argv[0], min(levels, shell.loop_depth))


def _getopts(shell: Shell, argv: list[str], streams: Streams) -> int:
    """POSIX getopts: OPTIND names the next argument, OPTARG an option's value."""
    if len(argv) < 3:
        _error(streams, "getopts: missing arguments")
        return 2
    spec, name = argv[1], argv[2]
    args = argv[3:] if len(argv) > 3 else list(shell.positional)
    written, offset = shell.getopts_state
    optind = shell.vars.get("OPTIND", "1")
    if optind != written:  # a script set OPTIND itself (OPTIND=1 starts again)
        offset = 0
    index = max(int(optind), 1) if optind.isdigit() else 1
    shell.vars.pop("OPTARG", None)
    word = args[index - 1] if index - 1 < len(args) else ""
    if not offset and (not word.startswith("-") or word in ("-", "--")):
        if word == "--":
            index += 1
        _set_optind(shell, index, 0)
        shell.vars[name] = "?"
        return 1
    offset = offset or 1
    letter = word[offset]
    offset += 1
    if offset >= len(word):
        index, offset = index + 1, 0
    position = spec.find(letter) if letter != ":" else -1
    found = letter
    if position >= 0 and spec[position + 1 : position + 2] == ":":
        if offset:  # the value is the rest of this word: -bVALUE
            shell.vars["OPTARG"] = word[offset:]
            index, offset = index + 1, 0
        elif index - 1 < len(args):
            shell.vars["OPTARG"] = args[index - 1]
            index += 1
        elif spec.startswith(":"):
            found = ":"
            shell.vars["OPTARG"] = letter
        else:
            _error(streams, f"-{letter}: requires an argument")
            found = "?"
    elif position < 0:
        found = "?"
        if spec.startswith(":"):
            shell.vars["OPTARG"] = letter
        else:
            _error(streams, f"-{letter}: unknown option")
    _set_optind(shell, index, offset)
    shell.vars[name] = found
    return 0


def _set_optind(shell: Shell, index: int, offset: int) -> None:
    shell.vars["OPTIND"] = str(index)
    shell.getopts_state = (str(index), offset)


def _let(shell: Shell, argv: list[str], streams: Streams) -> int:
    if len(argv) < 2:
        _error(streams, "let: missing argument")
        return 1
    value = 0
    for expression in argv[1:]:
        try:
            value = evaluate(expression, shell)
        except ArithmeticFailure as exc:
            _error(streams, str(exc))
            return 2
    return 0 if value else 1


def _source(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`. FILE [ARG…]`: run the file's commands in this shell."""
    if len(argv) < 2:
        _error(streams, f"{argv[0]}: missing argument")
        raise ExitShell(1)
    try:
        with shell.host.files.open_read(shell.resolve(argv[1])) as handle:
            source = handle.read().decode("utf-8", "replace")
    except FsError as exc:
        _error(streams, f"{argv[0]}: {argv[1]}: {exc.message}")
        raise ExitShell(1) from exc
    saved = list(shell.positional)
    if len(argv) > 2:
        shell.set_positional(argv[2:])
    shell.sourcing += 1
    try:
        return shell.run_source(source, streams)
    except FunctionReturn as returned:
        return returned.status
    finally:
        shell.sourcing -= 1
        if len(argv) > 2:
            shell.set_positional(saved)


_PRINT_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r",
                  "t": "\t", "v": "\v", "\\": "\\"}  # fmt: skip
_PRINT_ESCAPE = re.compile(r"\\(0[0-7]{0,3}|x[0-9a-fA-F]{1,2}|.)", re.DOTALL)


def _print(shell: Shell, argv: list[str], streams: Streams) -> int:
    """mksh's `print [-nrR] [-uN] [--] ARG…`: the words joined by spaces, escapes on unless
    -r (`\\c` drops the newline); -u2 writes to stderr."""
    args = argv[1:]
    newline, raw, out = True, False, streams.stdout
    while args and args[0].startswith("-") and len(args[0]) > 1:
        flag = args.pop(0)
        if flag == "--":
            break
        if flag.startswith("-u"):
            out = streams.stderr if flag[2:] == "2" else streams.stdout
            continue
        newline = newline and "n" not in flag
        raw = raw or "r" in flag or "R" in flag
    text = " ".join(args)
    if not raw:

        def escape(match: re.Match[str]) -> str:
            nonlocal newline
            code = match.group(1)
            if code == "c":
                newline = False
                return ""
            if code[0] == "0":
                return chr(int(code[1:] or "0", 8) & 0xFF)
            if code[0] == "x" and len(code) > 1:
                return chr(int(code[1:], 16))
            return _PRINT_ESCAPES.get(code, "\\" + code)

        text = _PRINT_ESCAPE.sub(escape, text)
    out.write((text + ("\n" if newline else "")).encode())
    return 0


SCRIPT_BUILTINS: dict[str, Callable[[Shell, list[str], Streams], int]] = {
    "local": typeset,
    "typeset": typeset,
    "readonly": readonly,
    "export": export,
    "unset": unset,
    "return": _return,
    "break": _loop_jump,
    "continue": _loop_jump,
    "getopts": _getopts,
    "let": _let,
    ".": _source,
    "source": _source,
    "ulimit": ulimit,
    "print": _print,
    "test": test,
    "[": test,
}
