"""Aliases (`alias`, `unalias`) and the built-ins mksh's own aliases lean on: `builtin`
and `whence`.

The parser replaces a command's first word that names an alias while it reads the line
(`shell_syntax.parse_lines`), so an alias defined on one line applies from the next one
on, as in mksh; a function keeps the aliases of the moment it was defined.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.shell.builtins import SHELL_PATH

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["DEFAULT_ALIASES", "alias", "builtin", "unalias", "whence"]

DEFAULT_ALIASES = {
    "autoload": "\\builtin typeset -fu",
    "functions": "\\builtin typeset -f",
    "hash": "\\builtin alias -t",
    "history": "\\builtin fc -l",
    "integer": "\\builtin typeset -i",
    "local": "\\builtin typeset",
    "login": "\\builtin exec login",
    "nameref": "\\builtin typeset -n",
    "nohup": "nohup ",
    "r": "\\builtin fc -e -",
    "type": "\\builtin whence -v",
}
"""mksh R59's own aliases (`\\builtin` finds the built-in even under a function's name)."""


def shown(name: str, value: str) -> str:
    """`NAME='VALUE'` as `alias` lists it (mksh shows its own `\\builtin` doubled)."""
    if DEFAULT_ALIASES.get(name) == value:
        value = value.replace("\\", "\\\\")
    return f"{name}={shlex.quote(value)}"


def _valid(name: str) -> bool:
    return bool(name) and not any(ch in name for ch in " \t\n;&|()<>`'\"$\\=/")


def alias(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`alias [-p] [NAME[=VALUE]…]`: define, show one (`NAME='VALUE'`), or list all."""
    args = argv[1:]
    prefix = ""
    while args and args[0].startswith("-") and len(args[0]) > 1:
        flag = args.pop(0)
        if flag == "--":
            break
        bad = next((letter for letter in flag[1:] if letter not in "dprtx"), None)
        if bad is not None:
            streams.stderr.write(f"{SHELL_PATH}: alias: -{bad}: unknown option\n".encode())
            return 1
        if "p" in flag:
            prefix = "alias "
        if "t" in flag:
            return _tracked(shell, args, streams)
    if not args:
        listing = "".join(f"{prefix}{shown(n, v)}\n" for n, v in sorted(shell.aliases.items()))
        streams.stdout.write(listing.encode())
        return 0
    status = 0
    for arg in args:
        name, equals, value = arg.partition("=")
        if not equals:
            if name in shell.aliases:
                streams.stdout.write(f"{prefix}{shown(name, shell.aliases[name])}\n".encode())
            else:
                streams.stdout.write(f"{name} alias not found\n".encode())
                status = 1
        elif not _valid(name):
            streams.stderr.write(f"{SHELL_PATH}: alias: {name}: invalid alias name\n".encode())
            status = 1
        else:
            shell.aliases[name] = value
            shell.alias_version += 1
    return status


def _tracked(shell: Shell, names: list[str], streams: Streams) -> int:
    """`alias -t` (`hash`): the commands found so far and where; with names, find them."""
    if not names:
        listing = "".join(f"{name}={path}\n" for name, path in sorted(shell.tracked.items()))
        streams.stdout.write(listing.encode())
        return 0
    status = 0
    for name in names:
        if "/" not in name and shell.host.lookup(name) is not None:
            shell.tracked.setdefault(name, f"/system/bin/{name}")
        else:
            status = 1
    return status


def unalias(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`unalias [-a] NAME…`: a name that is no alias is status 1, silently, as in mksh."""
    args = argv[1:]
    shell.alias_version += 1
    if args[:1] == ["-a"]:
        shell.aliases.clear()
        return 0
    status = 0
    for name in args:
        if shell.aliases.pop(name, None) is None:
            status = 1
    return status


def builtin(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`builtin NAME [ARG…]`: run the built-in NAME, never a function or a file."""
    from adbwire.testing.userland.shell.interp import BUILTINS  # noqa: PLC0415

    if len(argv) < 2:
        return 0
    found = BUILTINS.get(argv[1])
    if found is None:
        streams.stderr.write(f"{SHELL_PATH}: builtin: {argv[1]}: not found\n".encode())
        return 1
    return found(shell, argv[1:], streams)


def whence(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`whence [-v] NAME…`: what each name runs (-v: as `type` says it)."""
    from adbwire.testing.userland.shell.builtins import command_v, describe  # noqa: PLC0415

    args = argv[1:]
    verbose = False
    while args and args[0].startswith("-") and len(args[0]) > 1:
        verbose = verbose or "v" in args.pop(0)
    if verbose:
        return describe(shell, args, streams)
    return command_v(shell, args, streams)
