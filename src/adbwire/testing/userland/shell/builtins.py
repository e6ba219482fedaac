"""The shell's built-ins: cd, exit, export, unset, eval, exec, shift, read, `:`, trap,
type, wait, kill and set (more in builtins_script.py).

They change the shell itself (its directory, variables, positional parameters, traps) or,
for kill, act without a process of their own, so they run inside it rather than as device
commands.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.process import Streams

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

SHELL_PATH = "/system/bin/sh"


class ExitShell(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _cd(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`cd [DIR]`; `cd -` goes back to $OLDPWD and prints it."""
    operands = [arg for arg in argv[1:] if arg not in ("-L", "-P")]
    back = operands[:1] == ["-"]
    if back:
        operands = [shell.vars.get("OLDPWD", shell.cwd)]
    target = shell.resolve(operands[0] if operands else shell.vars.get("HOME", "/"))
    try:
        stat = shell.host.files.stat(target)
    except FsError as exc:
        streams.stderr.write(f"{SHELL_PATH}: cd: {target}: {exc.message}\n".encode())
        return 2
    if stat.mode & 0o170000 != 0o040000:
        streams.stderr.write(f"{SHELL_PATH}: cd: {target}: Not a directory\n".encode())
        return 2
    shell.vars["OLDPWD"] = shell.cwd
    shell.cwd = target
    if back:
        streams.stdout.write(target.encode() + b"\n")
    return 0


def _exit(shell: Shell, argv: list[str], streams: Streams) -> int:
    code = shell.last_status
    if len(argv) > 1:
        try:
            code = int(argv[1]) & 0xFF
        except ValueError:
            streams.stderr.write(f"{SHELL_PATH}: exit: {argv[1]}: bad number\n".encode())
            code = 1
    raise ExitShell(code)


def _export(shell: Shell, argv: list[str], streams: Streams) -> int:
    for arg in argv[1:]:
        if "=" in arg:
            name, value = arg.split("=", 1)
            shell.vars[name] = value
    return 0


def _unset(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`unset [-v] NAME…` removes variables, `unset -f NAME…` functions."""
    args = argv[1:]
    functions = False
    while args and args[0] in ("-f", "-v"):
        functions = args.pop(0) == "-f"
    for name in args:
        if functions:
            shell.functions.pop(name, None)
        else:
            shell.vars.pop(name, None)
    return 0


def _eval(shell: Shell, argv: list[str], streams: Streams) -> int:
    return shell.run_source(" ".join(argv[1:]), streams)


def _exec(shell: Shell, argv: list[str], streams: Streams) -> int:
    if len(argv) == 1:
        return 0
    raise ExitShell(shell.execute(argv[1:], streams))


def _shift(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`shift [N]`; shifting more than there are is an error that ends the script, as a
    special built-in's error does in mksh."""
    count = 1
    if len(argv) > 1:
        if not argv[1].isdigit():
            streams.stderr.write(f"{SHELL_PATH}: shift: {argv[1]}: bad number\n".encode())
            raise ExitShell(1)
        count = int(argv[1])
    if count > len(shell.positional):
        streams.stderr.write(f"{SHELL_PATH}: shift: nothing to shift\n".encode())
        raise ExitShell(1)
    shell.set_positional(shell.positional[count:])
    return 0


MAX_READ_LINE = 1 << 20
"""Bytes `read` takes for one line; the rest of a longer line is left unread."""


def _read(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`read [-r] [-d DELIM] [-n N|-N N] [-t SECONDS] [-u FD] [NAME…]`: one line (up to
    DELIM; at most N bytes, or exactly N with -N) split on $IFS, the last name taking the
    rest. Without -r a backslash keeps the next character (a blank does not split there)
    and a backslash-newline joins the next line. -t and -u are accepted, not applied."""
    args = argv[1:]
    raw = False
    values_of: dict[str, str] = {}
    while args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "--":
        flags = args.pop(0)[1:]
        for index, letter in enumerate(flags):
            if letter in "dnNtu":  # the rest of the word, or the next word, is its value
                values_of[letter] = flags[index + 1 :] or (args.pop(0) if args else "")
                break
            raw = raw or letter == "r"
    if args[:1] == ["--"]:
        args = args[1:]
    names = args or ["REPLY"]
    delimiter = (values_of.get("d", "\n") or "\0").encode()[:1]
    exact = "N" in values_of
    limit_text = values_of.get("N", values_of.get("n", ""))
    limit = int(limit_text) if limit_text.isdigit() else MAX_READ_LINE
    chars: list[tuple[str, bool]] = []  # (character, escaped)
    data = bytearray()
    ended = False
    while len(data) + len(chars) < min(limit, MAX_READ_LINE):
        byte = streams.stdin.read(1)
        if not byte:
            break
        if byte == b"\\" and not raw:
            escaped = streams.stdin.read(1)
            if escaped == b"\n" or not escaped:
                continue
            chars.extend(_decoded(data))
            data.clear()
            chars.append((escaped.decode("latin-1"), True))
            continue
        if byte == delimiter and not exact:
            ended = True
            break
        data += byte
    chars.extend(_decoded(data))
    ended = ended or (limit < MAX_READ_LINE and bool(chars))  # -n/-N: any bytes read
    values = _split_fields(chars, len(names), shell.get_var("IFS"))
    for index, name in enumerate(names):
        shell.vars[name] = values[index] if index < len(values) else ""
    return 0 if ended else 1


def _decoded(data: bytearray) -> list[tuple[str, bool]]:
    return [(ch, False) for ch in data.decode("utf-8", "replace")]


def _split_fields(chars: list[tuple[str, bool]], count: int, ifs: str | None) -> list[str]:
    """Split on unescaped IFS delimiters into at most `count` fields; the last keeps the
    rest of the line (delimiters inside it included, trailing IFS blanks dropped)."""
    separators = " \t\n" if ifs is None else ifs
    blanks = "".join(ch for ch in separators if ch in " \t\n")

    def at(index: int, kinds: str) -> bool:
        return index < len(chars) and chars[index][0] in kinds and not chars[index][1]

    fields: list[str] = []
    index = 0
    while at(index, blanks):
        index += 1
    while index < len(chars):
        if len(fields) == count - 1:
            rest = chars[index:]
            while rest and rest[-1][0] in blanks and not rest[-1][1]:
                rest.pop()
            fields.append("".join(ch for ch, _ in rest))
            break
        start = index
        while index < len(chars) and not at(index, separators):
            index += 1
        fields.append("".join(ch for ch, _ in chars[start:index]))
        while at(index, blanks):
            index += 1
        if at(index, separators):
            index += 1
            while at(index, blanks):
                index += 1
    return fields


def _colon(shell: Shell, argv: list[str], streams: Streams) -> int:
    return 0


def _trap(shell: Shell, argv: list[str], streams: Streams) -> int:
    """trap [ACTION] SIGNAL…: `-` resets, '' ignores; no arguments lists the traps."""
    from adbwire.testing.userland.proctable import SIGNAL_NAMES, signal_number  # noqa: PLC0415

    args = argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    if not args or args == ["-p"]:
        for number, action in sorted(shell.traps.items()):
            name = "EXIT" if number == 0 else SIGNAL_NAMES.get(number, str(number))
            quoted = "'" + action.replace("'", "'\\''") + "'"
            streams.stdout.write(f"trap -- {quoted} {name}\n".encode())
        return 0
    action, names = (args[0], args[1:]) if len(args) > 1 else ("-", args)
    if action.isdigit() and len(args) > 1 and signal_number(action) is not None:
        action, names = "-", args  # `trap 1 2` resets, as POSIX says
    status = 0
    for name in names:
        signo = 0 if name.upper() == "EXIT" else signal_number(name)
        if signo is None:
            streams.stderr.write(f"{SHELL_PATH}: trap: bad signal '{name}'\n".encode())
            status = 1
            continue
        if action == "-":
            shell.traps.pop(signo, None)
        else:
            shell.traps[signo] = action
    return status


_RESERVED = frozenset(
    ("!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "function",
     "if", "in", "select", "then", "time", "until", "while", "[[", "]]")
)  # fmt: skip
_SPECIAL = frozenset((".", ":", "break", "continue", "eval", "exec", "exit", "export",
                      "readonly", "return", "set", "shift", "source", "times", "trap",
                      "typeset", "unset"))  # fmt: skip
_MKSH_BUILTINS = frozenset(("[", "alias", "bg", "cd", "command", "echo", "false", "fc", "fg",
                            "getopts", "jobs", "kill", "let", "local", "print", "pwd", "read",
                            "test", "true", "type", "ulimit", "umask", "unalias", "wait",
                            "whence"))  # fmt: skip


def _type(shell: Shell, argv: list[str], streams: Streams) -> int:
    status = 0
    for name in argv[1:]:
        if name in _RESERVED:
            text = f"{name} is a reserved word"
        elif name in shell.functions and name not in _SPECIAL:
            text = f"{name} is a function"
        elif name in _SPECIAL:
            text = f"{name} is a special shell builtin"
        elif name in _MKSH_BUILTINS or name in SHELL_BUILTINS:
            text = f"{name} is a shell builtin"
        elif "/" in name and shell.host.files.exists(shell.resolve(name)):
            text = f"{name} is {name}"
        elif "/" not in name and shell.host.lookup(name) is not None:
            text = f"{name} is a tracked alias for /system/bin/{name}"
        else:
            streams.stderr.write(f"{name} not found\n".encode())
            status = 1
            continue
        streams.stdout.write(text.encode() + b"\n")
    return status


def _command(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`command -v NAME…` (what would run), `command -V` (as type), or run NAME skipping
    functions (the simulated shell has no aliases)."""
    args = argv[1:]
    if args[:1] in (["-v"], ["-V"]):
        if args[0] == "-V":
            return _type(shell, ["type", *args[1:]], streams)
        status = 0
        for name in args[1:]:
            known = name in SHELL_BUILTINS or name in _MKSH_BUILTINS or name in _SPECIAL
            if known or name in shell.functions:
                streams.stdout.write(name.encode() + b"\n")
            elif "/" not in name and shell.host.lookup(name) is not None:
                streams.stdout.write(f"/system/bin/{name}\n".encode())
            else:
                status = 1
        return status
    return shell.execute(args, streams) if args else 0


def _wait(shell: Shell, argv: list[str], streams: Streams) -> int:
    pids = [int(arg) for arg in argv[1:] if arg.isdigit()]
    return shell.wait_jobs(pids or None)


def _kill(shell: Shell, argv: list[str], streams: Streams) -> int:
    from adbwire.testing.userland.shell.interp import Invocation  # noqa: PLC0415

    command = shell.host.lookup("kill")
    if command is None:
        return 127
    return command(Invocation(argv, streams, shell))


_SET_LETTERS = {"e": "errexit", "x": "xtrace", "u": "nounset"}
_SET_OPTIONS = ("errexit", "nounset", "pipefail", "xtrace")


def _set(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`set [-+exu] [-+o OPTION] [--] [ARG…]`: options, then the positional parameters;
    alone, every variable as `NAME=value`; `set -o` alone, the options' states."""
    if len(argv) == 1:
        text = "".join(
            f"{name}={shlex.quote(value)}\n" for name, value in sorted(shell.vars.items())
        )
        streams.stdout.write(text.encode())
        return 0
    args = argv[1:]
    while args and args[0][:1] in ("-", "+") and args[0] != "--":
        flag = args.pop(0)
        on = flag[0] == "-"
        letters = flag[1:]
        if not letters or set(letters) - set(_SET_LETTERS) - {"o"}:
            bad = next((c for c in letters if c not in _SET_LETTERS and c != "o"), flag)
            streams.stderr.write(f"{SHELL_PATH}: set: -{bad}: unknown option\n".encode())
            return 2
        names = []
        listing = False
        for letter in letters:  # each o takes the next word: `set -eo pipefail`
            if letter != "o":
                names.append(_SET_LETTERS[letter])
            elif args:
                names.append(args.pop(0))
            else:
                listing = True
        for name in names:
            if name not in _SET_OPTIONS:
                streams.stderr.write(f"{SHELL_PATH}: set: {name}: bad option\n".encode())
                return 2
            if on:
                shell.options.add(name)
            else:
                shell.options.discard(name)
        if listing:  # `set -o` alone: the options' states
            states = "".join(
                f"{name:<15} {'on' if name in shell.options else 'off'}\n" for name in _SET_OPTIONS
            )
            streams.stdout.write(states.encode())
            return 0
    if args and args[0] == "--":
        args = args[1:]
        shell.set_positional(args)
    elif args:
        shell.set_positional(args)
    return 0


SHELL_BUILTINS: dict[str, Callable[[Shell, list[str], Streams], int]] = {
    "cd": _cd,
    "exit": _exit,
    "export": _export,
    "unset": _unset,
    "eval": _eval,
    "exec": _exec,
    "shift": _shift,
    "read": _read,
    ":": _colon,
    "trap": _trap,
    "type": _type,
    "wait": _wait,
    "command": _command,
    "kill": _kill,
    "set": _set,
}
