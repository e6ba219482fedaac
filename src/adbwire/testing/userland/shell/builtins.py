"""The shell's built-ins: cd, exit, eval, exec, shift, `:`, trap, type, command, wait,
kill and set (more in builtins_script.py, read.py, typeset.py, aliases.py, umask.py).

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
from adbwire.testing.userland.shell.arith import ArithmeticFailure, evaluate

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
    if len(argv) > 1:  # an arithmetic expression, as in mksh: `shift n`, `shift 1+1`
        try:
            count = evaluate(argv[1], shell) if argv[1].strip() else 0
        except ArithmeticFailure as exc:
            streams.stderr.write(f"{SHELL_PATH}: {exc}\n".encode())
            raise ExitShell(1) from None
        if count < 0:
            streams.stderr.write(f"{SHELL_PATH}: shift: bad number: {argv[1]}\n".encode())
            raise ExitShell(1)
    if count > len(shell.positional):
        streams.stderr.write(f"{SHELL_PATH}: shift: nothing to shift\n".encode())
        raise ExitShell(1)
    shell.set_positional(shell.positional[count:])
    return 0


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
_MKSH_BUILTINS = frozenset(("[", "alias", "bg", "builtin", "cd", "command", "echo", "false",
                            "fc", "fg", "getopts", "jobs", "kill", "let", "local", "print",
                            "pwd", "read", "test", "true", "type", "ulimit", "umask",
                            "unalias", "wait", "whence"))  # fmt: skip


MKSH_BUILTIN_NAMES = _MKSH_BUILTINS | _SPECIAL
"""What mksh runs itself: never a tracked command."""


def describe(shell: Shell, names: list[str], streams: Streams) -> int:
    """What each name is, as mksh's `type` (`whence -v`) says it."""
    from adbwire.testing.userland.shell.aliases import shown  # noqa: PLC0415

    status = 0
    for name in names:
        if name in _RESERVED:
            text = f"{name} is a reserved word"
        elif name in shell.aliases:
            text = f"{name} is an alias for {shown(name, shell.aliases[name]).split('=', 1)[1]}"
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


def _type(shell: Shell, argv: list[str], streams: Streams) -> int:
    return describe(shell, argv[1:], streams)


def command_v(shell: Shell, names: list[str], streams: Streams, *, tag: bool = False) -> int:
    """What each name would run: a built-in's or function's name, an alias's value (with
    `command -v`, as `alias NAME='VALUE'`), a command's path; status 1 for an unknown one."""
    from adbwire.testing.userland.shell.aliases import shown  # noqa: PLC0415

    status = 0
    for name in names:
        known = name in SHELL_BUILTINS or name in _MKSH_BUILTINS or name in _SPECIAL
        if name in shell.aliases:
            text = shown(name, shell.aliases[name])
            streams.stdout.write(f"{'alias ' + text if tag else text.split('=', 1)[1]}\n".encode())
        elif known or name in shell.functions or name in _RESERVED:
            streams.stdout.write(name.encode() + b"\n")
        elif "/" not in name and shell.host.lookup(name) is not None:
            streams.stdout.write(f"/system/bin/{name}\n".encode())
        else:
            status = 1
    return status


def _command(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`command -v NAME…` (what would run), `command -V` (as type), or run NAME skipping
    functions."""
    args = argv[1:]
    if args[:1] == ["-V"]:
        return describe(shell, args[1:], streams)
    if args[:1] == ["-v"]:
        return command_v(shell, args[1:], streams, tag=True)
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
    if args[:1] in (["-A"], ["+A"]):  # `set -A NAME ITEM…`: an array
        return _set_array(shell, args, streams)
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


def _set_array(shell: Shell, args: list[str], streams: Streams) -> int:
    from adbwire.testing.userland.shell import variables  # noqa: PLC0415

    if len(args) < 2:
        streams.stderr.write(f"{SHELL_PATH}: set: -A: requires an argument\n".encode())
        raise ExitShell(1)
    variables.set_array(shell, args[1], args[2:], replace=args[0] == "-A")
    return 0


SHELL_BUILTINS: dict[str, Callable[[Shell, list[str], Streams], int]] = {
    "cd": _cd,
    "exit": _exit,
    "eval": _eval,
    "exec": _exec,
    "shift": _shift,
    ":": _colon,
    "trap": _trap,
    "type": _type,
    "wait": _wait,
    "command": _command,
    "kill": _kill,
    "set": _set,
}
