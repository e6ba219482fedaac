"""Terminal escape sequences in the strings a device provides.

A device names itself (the CNXN banner's product, model and device), its packages and its
files; a hostile one puts control sequences there, which reach a terminal raw unless the
host renders them. This module supplies such strings and puts them where a device would:

- `escape_banner_properties()`: `DeviceOptions(banner_properties=...)` for the banner alone;
- `escape_userland_factory()`: the default scenario whose `ro.product.*` properties (so the
  banner and `getprop` too) and extra installed packages (`pm list packages`, `pm path`,
  `dumpsys package`) carry escape sequences;
- `plant_escape_files(files, directory)`: real files with such names (sync LIST, `ls`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.device_state import UserlandLike

__all__ = [
    "ESCAPE_FILE_NAMES",
    "ESCAPE_PACKAGE_NAMES",
    "ESCAPE_SEQUENCES",
    "escape_banner_properties",
    "escape_userland_factory",
    "plant_escape_files",
]

ESCAPE_SEQUENCES: Final = (
    "\x1b]0;owned\x07",  # OSC: set the window title
    "\x1b[2J\x1b[H",  # CSI: clear the screen, cursor home
    "\x1b[31m",  # CSI: red from here on
    "\u009b6n",  # C1 CSI (UTF-8 encoded): a device status report the terminal answers
    "\x07",  # BEL
    "\r",  # back to the start of the line: what follows overwrites what was printed
    "\x08\x08",  # backspaces
)
"""Each one does something visible (or worse) to a terminal that prints it raw."""

_ALL: Final = "".join(ESCAPE_SEQUENCES)

# Banner values must not hold ';', ':' or '=' (the banner's own separators), nor NUL: so no
# OSC (its parameters need ';'), but CSI, C1 and C0 controls.
_BANNER: Final = {
    "ro.product.name": "evil\x1b[2J\x1b[Hproduct\x07\u009b6n",
    "ro.product.model": "Pixel\x1b[31m model\x08\x08",
    "ro.product.device": "dev\rOVERWRITTEN\x1b[0m",
}

ESCAPE_PACKAGE_NAMES: Final = (
    "com.evil.title\x1b]0;owned\x07",
    "com.evil.clear\x1b[2J\x1b[H",
    "com.evil.red\x1b[31m",
    "com.evil.cr\rcom.example.looks_fine",
)
"""Installed package names with control characters (no spaces or newlines, so each stays
one `package:NAME` line)."""

ESCAPE_FILE_NAMES: Final = (
    "title\x1b]0;owned\x07.txt",
    "clear\x1b[2J\x1b[H.txt",
    "red\x1b[31m.txt",
    "csi\u009b6n.txt",
    "cr\rinnocent.txt",
    "newline\nfake_entry.txt",
    "bell\x07\x08\x08.txt",
)
"""File names a directory listing carries (no '/', no NUL: everything else is legal)."""


def escape_banner_properties() -> Mapping[str, str]:
    """ro.product.name/model/device with escape sequences, for DeviceOptions."""
    return dict(_BANNER)


def escape_userland_factory(
    package_names: tuple[str, ...] = ESCAPE_PACKAGE_NAMES,
) -> Callable[[DeviceFiles], UserlandLike]:
    """The default scenario with escape sequences in ro.product.* and extra packages."""

    def factory(files: DeviceFiles) -> UserlandLike:
        from adbwire.testing.scenario import PackageSpec, load_scenario  # noqa: PLC0415
        from adbwire.testing.userland import Userland  # noqa: PLC0415

        scenario = load_scenario()
        scenario.properties.update(_BANNER)
        uid = 10500
        for offset, name in enumerate(package_names):
            spec = PackageSpec(
                name=name, uid=uid + offset, installer=name, apk=f"/data/app/{name}-1/base.apk"
            )
            scenario.packages.append(spec)
        userland: UserlandLike = Userland(scenario, files)
        return userland

    return factory


def plant_escape_files(
    files: DeviceFiles,
    directory: str = "/sdcard/Download",
    names: tuple[str, ...] = ESCAPE_FILE_NAMES,
) -> list[str]:
    """Create a small file for each name in `directory`; returns the device paths."""
    paths = []
    for name in names:
        path = f"{directory.rstrip('/')}/{name}"
        files.write_bytes(path, name.encode("utf-8", errors="surrogateescape") + b"\n")
        paths.append(path)
    return paths
