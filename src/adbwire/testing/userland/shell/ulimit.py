"""`ulimit`: the shell's resource limits, as mksh prints and changes them.

The values are those of an adb shell on a typical Android 14 device (no core files, 8 MiB
stack, 32768 descriptors); the simulated device enforces none of them. A shell may lower
a limit, and raise a soft one up to its hard one, as a process without privileges may.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.shell.builtins import SHELL_PATH

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["DEFAULT_LIMITS", "Limit", "ulimit"]

Limit = tuple[int | None, int | None]  # (soft, hard); None: unlimited

# letter, what mksh calls it, soft, hard (mksh R59's order and names)
_RESOURCES: tuple[tuple[str, str, int | None, int | None], ...] = (
    ("t", "time(cpu-seconds)", None, None),
    ("f", "file(blocks)", None, None),
    ("c", "coredump(blocks)", 0, None),
    ("d", "data(KiB)", None, None),
    ("s", "stack(KiB)", 8192, None),
    ("l", "lockedmem(KiB)", 64, 64),
    ("n", "nofiles(descriptors)", 32768, 32768),
    ("p", "processes", 25946, 25946),
    ("i", "sigpending", 25946, 25946),
    ("q", "msgqueue(bytes)", 819200, 819200),
    ("e", "maxnice", 40, 40),
    ("R", "rttime(ms)", None, None),
    ("r", "maxrtprio", 0, 0),
    ("v", "address-space(KiB)", None, None),
    ("x", "filelocks", None, None),
)
_NAMES = {letter: name for letter, name, _, _ in _RESOURCES}
_USAGE = "ulimit: usage: ulimit [-acdefHilnpqRrSstvx] [value]"


DEFAULT_LIMITS: Mapping[str, Limit] = MappingProxyType(
    {letter: (soft, hard) for letter, _, soft, hard in _RESOURCES}
)
"""A new shell's limits, shared read-only: `ulimit` gives its shell a changed copy."""


def _show(value: int | None) -> str:
    return "unlimited" if value is None else str(value)


def ulimit(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`ulimit [-H|-S] [-a | -LETTER] [VALUE]`: show or set one limit (`-f` by default)."""
    hard = soft = False
    every = False
    letters: list[str] = []
    args = argv[1:]
    while args and args[0].startswith("-") and len(args[0]) > 1:
        for flag in args.pop(0)[1:]:
            if flag == "H":
                hard = True
            elif flag == "S":
                soft = True
            elif flag == "a":
                every = True
            elif flag in _NAMES:
                letters.append(flag)
            else:
                err = f"{SHELL_PATH}: ulimit: -{flag}: unknown option\n{SHELL_PATH}: {_USAGE}\n"
                streams.stderr.write(err.encode())
                return 1
    use_hard = hard and not soft
    if every:
        lines = "".join(
            f"-{letter}: {name:<22}{_show(shell.limits[letter][1 if use_hard else 0])}\n"
            for letter, name, _, _ in _RESOURCES
        )
        streams.stdout.write(lines.encode())
        return 0
    letter = letters[-1] if letters else "f"
    current_soft, current_hard = shell.limits[letter]
    if not args:
        streams.stdout.write((_show(current_hard if use_hard else current_soft) + "\n").encode())
        return 0
    text = args[0]
    if text == "unlimited":
        value: int | None = None
    elif text.isdigit():
        value = int(text)
    else:
        message = f"ulimit: invalid {_NAMES[letter]} limit: {text}"
        streams.stderr.write(f"{SHELL_PATH}: {message}\n".encode())
        return 1
    if current_hard is not None and (value is None or value > current_hard):
        message = f"ulimit: {text} exceeds allowable {_NAMES[letter]} limit"
        streams.stderr.write(f"{SHELL_PATH}: {message}\n".encode())
        return 1
    new_soft = current_soft if hard and not soft else value
    new_hard = value if hard or not soft else current_hard
    shell.limits = {**shell.limits, letter: (new_soft, new_hard)}
    return 0
