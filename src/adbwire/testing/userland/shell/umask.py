"""`umask`: the file mode creation mask, as mksh prints and sets it.

An adb shell starts with mask 000 (adbd clears it: files a shell creates are `rw-rw-rw-`);
the shell's redirections create files under it (`umask 022; echo > f` makes `rw-r--r--`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.shell.builtins import SHELL_PATH

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["DEFAULT_UMASK", "octal", "umask"]

DEFAULT_UMASK = 0o000
_CLAUSE = re.compile(r"([ugoa]*)([-+=])([rwxXst]*)")
_WHO = {"u": 0o700, "g": 0o070, "o": 0o007}
_PERMS = {"r": 0o444, "w": 0o222, "x": 0o111}


def octal(mask: int) -> str:
    """mksh's `%#3.3o`: three digits at least, and a leading 0 before a non-zero first."""
    digits = format(mask, "o").zfill(3)
    return digits if digits.startswith("0") else "0" + digits


def _symbolic(mask: int) -> str:
    allowed = 0o777 & ~mask
    parts = []
    for who, bits in _WHO.items():
        letters = "".join(p for p, pbits in _PERMS.items() if allowed & bits & pbits)
        parts.append(f"{who}={letters}")
    return ",".join(parts)


def _parse_symbolic(text: str, mask: int) -> int | None:
    """The mask after `u=rwx,g+w,o-r`-style clauses (they grant, not mask), or None."""
    allowed = 0o777 & ~mask
    for clause in text.split(","):
        found = _CLAUSE.fullmatch(clause)
        if found is None:
            return None
        who, op, perms = found.groups()
        scope = sum(_WHO[w] for w in set(who.replace("a", "ugo"))) if who else 0o777
        bits = sum(_PERMS[p] for p in set(perms) if p in _PERMS) & scope
        if op == "=":
            allowed = (allowed & ~scope) | bits
        elif op == "+":
            allowed |= bits
        else:
            allowed &= ~bits
    return 0o777 & ~allowed


def umask(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`umask [-S] [MASK]`: show the mask (octal, or -S as what it allows) or set it from
    octal digits or symbolic clauses."""
    args = argv[1:]
    symbolic = args[:1] == ["-S"]
    if symbolic:
        args = args[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    elif args and args[0].startswith("-") and len(args[0]) > 1:
        streams.stderr.write(f"{SHELL_PATH}: umask: {args[0][:2]}: unknown option\n".encode())
        return 1
    if not args:
        shown = _symbolic(shell.umask) if symbolic else octal(shell.umask)
        streams.stdout.write(shown.encode() + b"\n")
        return 0
    text = args[0]
    if text[:1].isdigit():
        if not all(ch in "01234567" for ch in text):
            streams.stderr.write(f"{SHELL_PATH}: umask: bad number\n".encode())
            return 1
        shell.umask = int(text, 8) & 0o777
        return 0
    mask = _parse_symbolic(text, shell.umask)
    if mask is None:
        streams.stderr.write(f"{SHELL_PATH}: umask: bad mask\n".encode())
        return 1
    shell.umask = mask
    return 0
