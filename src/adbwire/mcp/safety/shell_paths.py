"""The device paths the run_shell guard protects, and where an operand may point.

A path is *protected* when deleting or moving it would take a whole area with it: it is one
of the entries below or an ancestor of one (`*` stands for any one component). So `/` and
every top-level directory are protected, and so are user storage under each of its names,
every directory directly under `/data`, the per-user areas, and the directories of the
read-only partitions. `/sdcard/Download` or `/data/local/tmp/build` are not.

Operands are compared after a lexical normalisation: relative paths are joined to each
directory the shell may be in, `//` and `/.` vanish, `..` is applied (and remembered,
since the device applies it physically, through symlinks such as `/sdcard`), and a
trailing `/*` is dropped: `X/*` destroys what `X` holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from adbwire.mcp.safety.shell_words import Component, Text

HOME = "/"
"""`~` under `adb shell`: the shell user's home directory (unless the line sets HOME, or
runs commands as another user through su or run-as)."""

PROTECTED = (
    "/*",  # the root and every top-level area: /data /system /vendor /product /odm /sdcard ...
    "/data/*",  # /data/data /data/app /data/media /data/user /data/system /data/local ...
    "/data/media/*",  # /data/media/0: user storage behind /sdcard
    "/data/user/*",  # /data/user/0: app data (the same as /data/data)
    "/data/user_de/*",
    "/data/misc_ce/*",
    "/data/misc_de/*",
    "/data/system_ce/*",
    "/data/system_de/*",
    "/data/vendor_ce/*",
    "/data/vendor_de/*",
    "/storage/*",  # /storage/emulated, /storage/self, SD cards (/storage/ABCD-1234)
    "/storage/emulated/*",  # /storage/emulated/0: user storage
    "/storage/self/primary",
    "/mnt/*",  # /mnt/sdcard /mnt/user /mnt/runtime /mnt/media_rw /mnt/expand ...
    "/mnt/user/*/primary",
    "/mnt/user/*/emulated/*",
    "/mnt/runtime/*/emulated/*",
    "/mnt/runtime/*/self/primary",
    "/mnt/pass_through/*/emulated/*",
    "/mnt/installer/*/emulated/*",
    "/mnt/androidwritable/*/emulated/*",
    "/mnt/shell/emulated/*",
    "/mnt/media_rw/*",
    "/mnt/expand/*",
    "/system/*",
    "/system_ext/*",
    "/vendor/*",
    "/product/*",
    "/odm/*",
    "/apex/*",
    "/dev/*",
)
_ENTRIES = tuple(tuple(entry.strip("/").split("/")) for entry in PROTECTED)

DEVICE_NODES = (
    "/dev/block/*",
    "/dev/mtd*",
    "/dev/mmcblk*",
    "/dev/sd[a-z]*",
    "/dev/nvme*",
    "/dev/vd[a-z]*",
    "/dev/dm-*",
    "/dev/ubi*",
    "/dev/mapper/*",
    "/dev/mem",
    "/dev/kmem",
)
"""Raw storage and memory: a write to one of these bypasses every file system."""

Cwds = frozenset[str] | None
"""The directories the shell may be in at some point of a command line; None: unknown."""


@dataclass(frozen=True)
class Target:
    """One place an operand may name, normalised."""

    components: tuple[Component, ...]
    dotdot: bool
    """`..` was applied lexically; the device applies it through symlinks."""
    home: bool
    """The operand started with `~`."""

    @property
    def path(self) -> str:
        return "/" + "/".join(component.text for component in self.components)

    @property
    def globs(self) -> bool:
        return any(component.pattern is not None for component in self.components)


def targets(text: Text, cwds: Cwds, home: str | None = HOME) -> list[Target] | None:
    """Where the operand may point, one target per possible directory; None when unknown
    (a relative path in an unknown directory, `~` of an unknown home)."""
    components = text.components()
    if text.tilde:
        if home is None:
            return None
        bases: list[str] = [home]
    elif text.text.startswith("/"):
        bases = ["/"]
    elif cwds is None:
        return None
    else:
        bases = sorted(cwds)
    if text.tilde or text.text.startswith("/"):
        components = components[1:]  # the "~" or the empty name before the first "/"
    return [_normalise(base, components, text.tilde) for base in bases]


def _normalise(base: str, components: list[Component], home: bool) -> Target:
    stack = [Component(name) for name in base.split("/") if name]
    dotdot = False
    for component in components:
        if component.pattern is None and component.text in ("", "."):
            continue
        if component.pattern is None and component.text == "..":
            dotdot = True
            if stack:
                stack.pop()
            continue
        stack.append(component)
    while stack and stack[-1].pattern == "*":
        stack.pop()
    return Target(tuple(stack), dotdot, home)


def protected(target: Target) -> bool:
    """The target is a protected path, or (a glob) may match one."""
    size = len(target.components)
    return any(
        size <= len(entry) and all(map(_covers, target.components, entry)) for entry in _ENTRIES
    )


def _covers(component: Component, entry: str) -> bool:
    if entry == "*":
        return True
    if component.pattern is None:
        return component.text == entry
    return fnmatchcase(entry, component.pattern)


def device_node(target: Target) -> bool:
    """The target (not a glob) is a raw storage or memory device."""
    return any(fnmatchcase(target.path, pattern) for pattern in DEVICE_NODES)
