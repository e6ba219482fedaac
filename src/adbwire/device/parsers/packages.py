"""``pm list packages``, ``pm path`` and ``cmd package resolve-activity --brief``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device.parsers._text import lines_of, raise_if_error_output
from adbwire.device.parsers.component import Component, parse_component

# Options of "pm list packages" add fields after the name: -U " uid:10123",
# -i "  installer=com.android.vending", --show-versioncode " versionCode:42".
# The last whitespace-separated word is matched on its own: a regular expression searched
# for "whitespace, field, end" backtracks quadratically over a long run of spaces (a
# hostile device's 16 KB line took 9 s).
_TRAILING_FIELD = re.compile(r"uid:\d+(?:,\d+)*|installer=\S*|versionCode:\d+")
_MAX_TRAILING_FIELDS = 3


@dataclass(frozen=True)
class PackageEntry:
    """One line of ``pm list packages``; optional fields are ``None`` unless asked for."""

    name: str
    apk_path: str | None = None
    uid: int | None = None
    installer: str | None = None
    version_code: int | None = None


def parse_package_list(text: str) -> tuple[PackageEntry, ...]:
    """Parse ``pm list packages [-f] [-U] [-i] [--show-versioncode]``.

    With ``-f`` a line is ``package:<apk path>=<name>``; the path itself may contain ``=``
    (``/data/app/~~abc==/...``), so the name is what follows the *last* ``=``.
    """
    raise_if_error_output("pm list packages", text)
    entries: list[PackageEntry] = []
    for raw_line in lines_of(text):
        line = raw_line.strip()
        if not line.startswith("package:"):
            continue
        rest = line[len("package:") :]
        uid: int | None = None
        installer: str | None = None
        version_code: int | None = None
        for _ in range(_MAX_TRAILING_FIELDS):
            head_and_token = rest.rsplit(None, 1)
            if len(head_and_token) != 2 or not _TRAILING_FIELD.fullmatch(head_and_token[1]):
                break
            rest, token = head_and_token
            if token.startswith("uid:"):
                uid = int(token[4:].split(",")[0])
            elif token.startswith("installer="):
                installer = token[len("installer=") :] or None
                installer = None if installer == "null" else installer
            else:
                version_code = int(token[len("versionCode:") :])
        apk_path: str | None = None
        if rest.startswith("/") and "=" in rest:
            apk_path, _, rest = rest.rpartition("=")
        if rest:
            entries.append(PackageEntry(rest, apk_path, uid, installer, version_code))
    return tuple(entries)


def parse_pm_path(text: str) -> tuple[str, ...]:
    """APK paths from ``pm path PKG`` (base first, then splits); empty when not installed."""
    return tuple(
        line.strip()[len("package:") :]
        for line in lines_of(text)
        if line.strip().startswith("package:/")
    )


def parse_resolve_activity(text: str) -> Component | None:
    """The activity named by ``cmd package resolve-activity --brief ...``, if one resolved.

    The brief form prints a ``priority=... preferredOrder=...`` line, then the component;
    ``No activity found`` means nothing resolved.
    """
    for line in reversed(lines_of(text)):
        component = parse_component(line)
        if component is not None:
            return component
    return None
