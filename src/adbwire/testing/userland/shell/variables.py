"""Variables as mksh keeps them: typeset attributes (`-i -u -l -r -x`, `-L/-R/-Z` widths),
read-only names, and arrays.

An array's element 0 is the variable's scalar value (`a` and `a[0]` are one), so scalars
stay in `Shell.vars` and only elements 1 and up live in `Shell.arrays`; every assignment
goes through `assign`, which formats the value for the name's attributes and refuses a
read-only name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from adbwire.testing.userland.shell.arith import ArithmeticFailure, evaluate

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["Attributes", "ReadOnlyError", "Saved", "assign", "restore", "save"]

_T = TypeVar("_T")
PIPESTATUS = "PIPESTATUS"
"""mksh's read-only array of the last pipeline's statuses (`Shell.pipe_statuses`)."""
INDEX_MASK = 0xFFFFFFFF
"""mksh's array indexes are unsigned 32-bit: -1 is 4294967295."""
MAX_WIDTH = 1 << 24
"""The widest `typeset -L/-R/-Z` field the simulator pads to (mksh's limit is memory)."""


class ReadOnlyError(ArithmeticFailure):
    """An assignment to a read-only name: mksh's `read-only: NAME`, which ends a
    non-interactive shell with status 2 (a built-in puts its name in front)."""

    status = 2


@dataclass(frozen=True)
class Attributes:
    """`typeset` flags of one name. Frozen: shells share them (a subshell's table, every
    session's exported environment), and a change makes a new one."""

    integer: bool = False
    upper: bool = False
    lower: bool = False
    readonly: bool = False
    export: bool = False
    justify: str = ""
    """"L" (left), "R" (right) or "Z" (right, zero-filled) within `width` characters."""
    width: int = 0
    base: int = 10
    """An integer's output base (`typeset -i8`: 9 reads `8#11`); 1 is a character."""

    def flags(self) -> str:
        """The options `typeset -p` shows them with, in mksh's order."""
        letters = [
            ("-i", self.integer),
            ("-l", self.lower),
            ("-r", self.readonly),
            ("-u", self.upper and not self.lower),
            ("-x", self.export),
        ]
        shown = [flag for flag, on in letters if on]
        if self.justify == "Z":
            shown.extend((f"-R{self.width}", "-Z"))
        elif self.justify:
            shown.append(f"-{self.justify}{self.width}")
        return " ".join(shown)


def formatted(shell: Shell, attributes: Attributes | None, value: str) -> str:
    """`value` as a name with these attributes holds it."""
    if attributes is None:
        return value
    if attributes.integer:
        value = in_base(evaluate(value or "0", shell), attributes.base)
    if attributes.lower:
        value = value.lower()
    elif attributes.upper:
        value = value.upper()
    if attributes.justify:
        value = _justified(value, attributes)
    return value


def in_base(number: int, base: int) -> str:
    """An integer as mksh prints it in `base`: `BASE#DIGITS` (lower-case letters past 9),
    the sign in front; bare in base 10; base 1 is `1#` and the character of that code
    (a surrogate, which mksh writes as its raw three bytes, is U+FFFD here)."""
    if base == 10:
        return str(number)
    if base == 1:  # mksh (UTF-8 mode): the magnitude's character, up to U+FFFD; 0 is 2#0
        code = abs(number)
        if not code:
            return "2#0"
        return "1#" + ("\ufffd" if code > 0xFFFD or 0xD800 <= code < 0xE000 else chr(code))
    digits = ""
    magnitude = abs(number)
    while True:
        magnitude, digit = divmod(magnitude, base)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
        if not magnitude:
            break
    return f"{'-' if number < 0 else ''}{base}#{digits}"


def _justified(value: str, attributes: Attributes) -> str:
    width = attributes.width or len(value)
    if attributes.justify == "L":
        return value.lstrip(" \t")[:width].ljust(width)
    text = value.rstrip(" \t")[-width:] if width else ""
    return text.rjust(width, "0" if attributes.justify == "Z" else " ")


def assign(
    shell: Shell, name: str, value: str, *, index: int | None = None, append: bool = False
) -> None:
    """Set NAME (or its element INDEX) as mksh does: refused when read-only, `+=` appends
    (adds, for an integer), the value formatted for the name's attributes."""
    attributes = shell.attrs.get(name)
    if (attributes is not None and attributes.readonly) or name == PIPESTATUS:
        raise ReadOnlyError(f"read-only: {name}")
    if index is not None:
        index &= INDEX_MASK
    if append:  # text appended, even to an integer (mksh: 5, then +=3, is 53)
        value = (element(shell, name, index or 0) or "") + value
    value = formatted(shell, attributes, value)
    if not index:
        shell.vars[name] = value
    else:
        shell.arrays.setdefault(name, {})[index] = value


def element(shell: Shell, name: str, index: int) -> str | None:
    index &= INDEX_MASK
    if name == PIPESTATUS:
        statuses = shell.pipe_statuses
        return str(statuses[index]) if index < len(statuses) else None
    if index == 0:
        return shell.get_var(name)
    return shell.arrays.get(name, {}).get(index)


def indexes(shell: Shell, name: str) -> list[int]:
    """The indexes set in array NAME, in order (0 when the scalar is set)."""
    if name == PIPESTATUS:
        return list(range(len(shell.pipe_statuses)))
    found = sorted(shell.arrays.get(name, {}))
    return [0, *found] if shell.get_var(name) is not None else found


def values(shell: Shell, name: str) -> list[str]:
    return [element(shell, name, index) or "" for index in indexes(shell, name)]


def set_array(
    shell: Shell, name: str, items: list[str], *, replace: bool, after: bool = False
) -> None:
    """`set -A NAME ITEM…` (the array becomes ITEMs), `set +A` (the first ones replaced)
    or, `after`, `NAME+=(ITEM…)` (appended past the last index)."""
    start = max(indexes(shell, name), default=-1) + 1 if after else 0
    if replace:
        unset(shell, name)
    for offset, item in enumerate(items):
        assign(shell, name, item, index=start + offset)


def unset(shell: Shell, name: str, index: int | None = None) -> None:
    """`unset NAME` (every element) or `unset NAME[INDEX]`; refused when read-only."""
    attributes = shell.attrs.get(name)
    if (attributes is not None and attributes.readonly) or name == PIPESTATUS:
        raise ReadOnlyError(f"read-only: {name}")
    if index is None:
        shell.vars.pop(name, None)
        shell.arrays.pop(name, None)
        shell.attrs.pop(name, None)
    elif index & INDEX_MASK == 0:
        shell.vars.pop(name, None)
    else:
        shell.arrays.get(name, {}).pop(index & INDEX_MASK, None)


Saved = tuple[str | None, dict[int, str] | None, Attributes | None]
"""What a name was before a function's `local` made it its own."""


def save(shell: Shell, name: str) -> Saved:
    array = shell.arrays.pop(name, None)
    attributes = shell.attrs.pop(name, None)
    return shell.vars.get(name), array, attributes


def restore(shell: Shell, name: str, saved: Saved) -> None:
    value, array, attributes = saved
    if value is None:
        shell.vars.pop(name, None)
    else:
        shell.vars[name] = value
    _put(shell.arrays, name, array)
    _put(shell.attrs, name, attributes)


def _put(table: dict[str, _T], name: str, value: _T | None) -> None:
    if value is None:
        table.pop(name, None)
    else:
        table[name] = value


def copy_attributes(attrs: dict[str, Attributes]) -> dict[str, Attributes]:
    return dict(attrs)  # the values are frozen: the table is all a subshell needs its own
