"""`typeset`/`local`, `readonly`, `export` and `unset`: names, their attributes and values,
in mksh's formats (`typeset -p`: `typeset -i -x n=3`; `readonly -p`: `readonly r=1`)."""

from __future__ import annotations

import dataclasses
import re
import shlex
from typing import TYPE_CHECKING

from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.shell import variables
from adbwire.testing.userland.shell.arith import ArithmeticFailure, evaluate
from adbwire.testing.userland.shell.builtins import SHELL_PATH, ExitShell
from adbwire.testing.userland.shell.variables import Attributes, ReadOnlyError

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["export", "readonly", "typeset", "unset"]

_FLAG = re.compile(r"([iulrxp]|[LRZ][0-9]*)")
_MAX_BASE = (1 << 31) - 1
"""The largest base mksh reads; past 36 (and 0) it prints in base 10."""
_ELEMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[(.*)\]$", re.DOTALL)


def _error(streams: Streams, message: str) -> None:
    streams.stderr.write(f"{SHELL_PATH}: {message}\n".encode())


def _quoted(value: str) -> str:
    """A value as mksh prints it: bare when safe, else in single quotes."""
    return shlex.quote(value)


def _options(args: list[str], streams: Streams, name: str) -> tuple[dict[str, bool], list[str]]:
    """Leading `-FLAGS`/`+FLAGS` words: each flag letter (with a width for L, R, Z, a base
    for i) mapped to on/off, and the words left."""
    flags: dict[str, bool] = {}
    while args and args[0][:1] in ("-", "+") and len(args[0]) > 1:
        word = args.pop(0)
        if word == "--":
            break
        on = word[0] == "-"
        text = word[1:]
        while text:
            if text[0] == "i" and text[1:2].isdigit():  # mksh: the rest of the word is the base
                _check_number(streams, name, "bad integer base", text[1:], _MAX_BASE)
                flags[text] = on
                break
            match = _FLAG.match(text)
            if match is None:
                _error(streams, f"{name}: -{text[0]}: unknown option")
                raise ValueError(text[0])
            if len(match.group()) > 1:
                _check_number(streams, name, "bad number", match.group()[1:], variables.MAX_WIDTH)
            flags[match.group()] = on
            text = text[match.end() :]
    return flags, args


def _check_number(streams: Streams, name: str, what: str, number: str, limit: int) -> None:
    """mksh's errors for an option's number that is not digits or is past `limit`."""
    if not number.isdigit():
        reason = "Invalid argument"
    elif int(number) > limit:
        reason = "Value too large for defined data type"
    else:
        return
    _error(streams, f"{name}: {what}: {number}: {reason}")
    raise ValueError(number)


def _apply(attributes: Attributes, flags: dict[str, bool]) -> Attributes:
    """The attributes with the flags' changes (a new value: Attributes are frozen)."""
    changes: dict[str, bool | str | int] = {}
    for flag, on in flags.items():
        letter = flag[0]
        if letter == "i":
            changes["integer"] = on
            if not on:  # mksh: +i forgets the base too
                changes["base"] = 10
            elif flag[1:]:
                base = int(flag[1:])
                changes["base"] = base if 1 <= base <= 36 else 10
        elif letter == "u":  # with -l too, -l wins (`typeset -lu` and `-ul` lower)
            changes["upper"] = on
        elif letter == "l":
            changes["lower"] = on
        elif letter == "r" and on:
            changes["readonly"] = True
        elif letter == "x":
            changes["export"] = on
        elif letter in "LRZ":
            changes["justify"] = letter if on else ""
            changes["width"] = int(flag[1:]) if flag[1:] else 0
    return dataclasses.replace(attributes, **changes) if changes else attributes  # type: ignore[arg-type]


def typeset(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`typeset [±iulrx] [±L|R|Z[N]] [-p] [NAME[=VALUE]…]` (and `local`): inside a function
    the names are its own, restored when it returns; attributes format every value later
    assigned; with no names, the variables having the flags given are listed."""
    try:
        flags, names = _options(argv[1:], streams, argv[0])
    except ValueError:
        return 1
    printing = flags.pop("p", False)
    if not names:
        if printing or not flags:  # `typeset`: declarations; -p: with the values
            _list(shell, streams, flags, "typeset", values=printing)
        else:  # `typeset -i`: NAME=value; `typeset +i`: the names
            _list(shell, streams, flags, "", values=any(flags.values()))
        return 0
    status = 0
    for arg in names:
        name, equals, value = arg.partition("=")
        if printing and not equals:
            status |= _print_one(shell, streams, name)
            continue
        element = _ELEMENT.match(name)
        index = None
        if element is not None:
            name = element.group(1)
            index = evaluate(element.group(2) or "0", shell)
        if shell.frames and argv[0] in ("local", "typeset"):
            frame = shell.frames[-1]
            if name not in frame:  # the function's own name: unset until assigned
                frame[name] = variables.save(shell, name)
                shell.vars.pop(name, None)
            else:
                shell.attrs.pop(name, None)
        try:
            _declare(shell, name, flags, value if equals else None, index)
        except ReadOnlyError as exc:
            raise ReadOnlyError(f"{argv[0]}: {exc}") from None
    return status


def _declare(
    shell: Shell, name: str, flags: dict[str, bool], value: str | None, index: int | None
) -> None:
    old = shell.attrs.get(name)
    if old is not None and old.readonly and (value is not None or flags):
        raise ReadOnlyError(f"read-only: {name}")
    readonly = flags.get("r", False)
    changes = {flag: on for flag, on in flags.items() if flag != "r"}
    attributes = _apply(old or Attributes(), changes)
    current = shell.vars.get(name) if value is None else value
    if attributes.justify and not attributes.width and current is not None:
        attributes = dataclasses.replace(attributes, width=len(current))
    if attributes != Attributes():
        shell.attrs[name] = attributes
    else:
        shell.attrs.pop(name, None)
    if value is not None:
        variables.assign(shell, name, value, index=index)
    elif current is not None and name in shell.attrs:  # the value takes the new format
        shell.vars[name] = variables.formatted(shell, attributes, current)
    if readonly:
        shell.attrs[name] = dataclasses.replace(shell.attrs.get(name, attributes), readonly=True)


def _print_one(shell: Shell, streams: Streams, name: str) -> int:
    attributes = shell.attrs.get(name)
    value = shell.vars.get(name)
    if value is None and attributes is None:
        return 0
    flags = attributes.flags() if attributes is not None else ""
    shown = f"typeset {flags} " if flags else "typeset "
    streams.stdout.write(f"{shown}{_assignment(name, value, attributes)}\n".encode())
    return 0


def _assignment(name: str, value: str | None, attributes: Attributes | None = None) -> str:
    if value is None:
        return name
    if attributes is not None and attributes.integer and attributes.base != 1:
        return f"{name}={value}"  # mksh prints a number bare, `16#ff` too
    return f"{name}={_quoted(value)}"


def _matches(attributes: Attributes | None, flags: dict[str, bool]) -> bool:
    """Whether a name has every attribute the flags name (`-i` and `+i` alike)."""
    probe = _apply(Attributes(), dict.fromkeys(flags, True))
    probe = dataclasses.replace(probe, readonly="r" in flags)
    return attributes is not None and all(
        getattr(attributes, field.name) == getattr(probe, field.name)
        for field in dataclasses.fields(Attributes)
        if getattr(probe, field.name) and field.name not in ("width", "base")
    )


def _list(
    shell: Shell, streams: Streams, flags: dict[str, bool], prefix: str, *, values: bool = True
) -> None:
    """The variables having the flags' attributes (all without flags), one a line: with a
    prefix (`typeset`, `export`) and, for typeset, the attributes; NAME=value or NAME."""
    names = sorted(set(shell.vars) | set(shell.attrs))
    lines: list[str] = []
    for name in names:
        attributes = shell.attrs.get(name)
        if flags and not _matches(attributes, flags):
            continue
        shown = _assignment(name, shell.vars.get(name), attributes) if values else name
        if prefix:
            flag_text = attributes.flags() if attributes is not None and prefix == "typeset" else ""
            shown = f"{prefix} {flag_text + ' ' if flag_text else ''}{shown}"
        lines.append(shown)
    streams.stdout.write("".join(line + "\n" for line in lines).encode())


def readonly(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`readonly [-p] [NAME[=VALUE]…]`: alone, the read-only names; -p as assignments."""
    args = argv[1:]
    printing = args[:1] == ["-p"]
    if printing:
        args = args[1:]
    if args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "--":
        _error(streams, f"readonly: {args[0][:2]}: unknown option")
        raise ExitShell(1)  # a special built-in's error ends the script
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        for name in sorted(n for n, a in shell.attrs.items() if a.readonly):
            value = shell.vars.get(name)
            text = f"readonly {_assignment(name, value, shell.attrs[name])}" if printing else name
            streams.stdout.write(text.encode() + b"\n")
        return 0
    return typeset(shell, ["readonly", "-r", *args], streams)


def export(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`export [-p] [NAME[=VALUE]…]`: the names get the export attribute; alone, the
    exported names (-p: as `export NAME=value`)."""
    args = [arg for arg in argv[1:] if arg != "-p"]
    if not args:
        if "-p" in argv[1:]:
            _list(shell, streams, {"x": True}, "export")
        else:
            names = sorted(n for n, a in shell.attrs.items() if a.export)
            streams.stdout.write("".join(name + "\n" for name in names).encode())
        return 0
    return typeset(shell, ["export", "-x", *args], streams)


def unset(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`unset [-v] NAME[[INDEX]]…` removes variables (or one element), `unset -f NAME…`
    functions; a read-only name stays, with mksh's warning and status 1."""
    args = argv[1:]
    functions = False
    while args and args[0] in ("-f", "-v"):
        functions = args.pop(0) == "-f"
    status = 0
    for name in args:
        if functions:
            shell.functions.pop(name, None)
            continue
        element = _ELEMENT.match(name)
        try:
            if element is None:
                variables.unset(shell, name)
            else:
                index = evaluate(element.group(2) or "0", shell)
                variables.unset(shell, element.group(1), index)
        except ReadOnlyError as exc:
            _error(streams, str(exc))
            status = 1
        except ArithmeticFailure as exc:
            _error(streams, str(exc))
            status = 1
    return status
