"""``dumpsys package PKG``: version, install times, permissions, launcher activity."""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device.parsers._text import indent_of, lines_of, raise_if_error_output
from adbwire.device.parsers.component import Component, parse_component

_PACKAGE_HEADER = re.compile(r"^\s+Package \[([^\]]+)\] \([0-9a-f]+\):\s*$")
_USER_HEADER = re.compile(r"^User (\d+):")
_PERMISSION = re.compile(r"^([\w.$-]+)(?::\s*(.*))?$")
_GRANTED = re.compile(r"\bgranted=(true|false)\b")
_FLAGS = re.compile(r"\bflags=\[\s*([^\]]*)\]")
_RESOLVER_ENTRY = re.compile(r"^[0-9a-f]+ (\S+/\S+)(?: filter [0-9a-f]+| \(\d+ filters?\))?$")
_LAUNCHER_CATEGORIES = (
    "android.intent.category.LAUNCHER",
    "android.intent.category.LEANBACK_LAUNCHER",
)


@dataclass(frozen=True)
class PermissionState:
    """A permission the package holds or may hold; ``kind`` is ``install`` or ``runtime``."""

    name: str
    granted: bool
    kind: str
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class PackageInfo:
    """What ``dumpsys package`` says about one installed package (first user's view)."""

    name: str
    version_name: str | None
    version_code: int | None
    min_sdk: int | None
    target_sdk: int | None
    installer: str | None
    first_install_time: str | None
    last_update_time: str | None
    uid: int | None
    code_path: str | None
    flags: tuple[str, ...]
    requested_permissions: tuple[str, ...]
    permissions: tuple[PermissionState, ...]
    launchable_activity: Component | None

    @property
    def granted_permissions(self) -> tuple[str, ...]:
        """Names of the permissions currently granted."""
        return tuple(p.name for p in self.permissions if p.granted)

    @property
    def is_system(self) -> bool:
        """Whether the package is part of the system image."""
        return "SYSTEM" in self.flags


def parse_package_info(text: str, package: str) -> PackageInfo | None:
    """Parse ``dumpsys package PKG`` (or a whole ``dumpsys package``) for ``package``.

    Returns ``None`` when the package is not installed (``Unable to find package: ...`` or no
    section for it). Raises :class:`~adbwire.errors.DeviceCommandError` on an error reply.
    """
    raise_if_error_output("dumpsys package", text)
    lines = lines_of(text)
    if any(line.strip().startswith("Unable to find package:") for line in lines[:3]):
        return None
    section = _package_section(lines, package)
    if section is None:
        return None
    values = _key_values(section)
    requested, permissions = _permissions(section)
    flags_text = values.get("flags", "").strip("[] ")
    return PackageInfo(
        name=package,
        version_name=values.get("versionName"),
        version_code=_int(values.get("versionCode")),
        min_sdk=_int(values.get("minSdk")),
        target_sdk=_int(values.get("targetSdk")),
        installer=_none_if_null(values.get("installerPackageName")),
        first_install_time=values.get("firstInstallTime"),
        last_update_time=values.get("lastUpdateTime"),
        uid=_int(values.get("userId") or values.get("appId")),
        code_path=values.get("codePath"),
        flags=tuple(flags_text.split()) if flags_text else (),
        requested_permissions=requested,
        permissions=permissions,
        launchable_activity=_launchable_activity(lines, package),
    )


def _int(value: str | None) -> int | None:
    # Some lines pack more after the number: "userId=10056 gids=[3003]".
    token = value.split()[0] if value and value.split() else ""
    return int(token) if token.lstrip("-").isdigit() else None


def _none_if_null(value: str | None) -> str | None:
    return None if value in (None, "", "null") else value


def _package_section(lines: list[str], package: str) -> list[str] | None:
    # Only the "Packages:" list counts: "Hidden system packages:" repeats a package with the
    # factory version of an updated system app.
    in_packages = not any(line.rstrip() == "Packages:" for line in lines)
    for number, line in enumerate(lines):
        if line and not line[0].isspace():
            in_packages = line.rstrip() == "Packages:"
            continue
        header = _PACKAGE_HEADER.match(line)
        if not in_packages or header is None or header.group(1) != package:
            continue
        base = indent_of(line)
        section: list[str] = []
        for body in lines[number + 1 :]:
            if body.strip() and indent_of(body) <= base:
                break
            section.append(body)
        return section
    return None


def _key_values(section: list[str]) -> dict[str, str]:
    """``key=value`` pairs of the section, first occurrence wins.

    Values run to the end of the line except for a few lines that pack several short
    pairs (``versionCode=1 minSdk=29 targetSdk=30``).
    """
    values: dict[str, str] = {}
    for line in section:
        stripped = line.strip()
        if "=" not in stripped or stripped.startswith(("User ", "Action:", "Category:")):
            continue
        key, _, value = stripped.partition("=")
        if " " in key:
            continue
        if key == "versionCode":
            for pair in stripped.split():
                name, _, item = pair.partition("=")
                values.setdefault(name, item)
            continue
        values.setdefault(key, value.strip())
    return values


def _permissions(section: list[str]) -> tuple[tuple[str, ...], tuple[PermissionState, ...]]:
    requested: list[str] = []
    states: list[PermissionState] = []
    list_name: str | None = None
    list_indent = 0
    first_user: str | None = None
    current_user: str | None = None
    for line in section:
        stripped = line.strip()
        if not stripped:
            continue
        indent = indent_of(line)
        if list_name is not None and indent <= list_indent:
            list_name = None
        user = _USER_HEADER.match(stripped)
        if user is not None:
            current_user = user.group(1)
            first_user = first_user or current_user
            continue
        if stripped in (
            "requested permissions:",
            "install permissions:",
            "runtime permissions:",
            "grantedPermissions:",
        ):
            list_name, list_indent = stripped[:-1], indent
            continue
        if list_name is None:
            continue
        match = _PERMISSION.match(stripped)
        if match is None:
            continue
        name, details = match.group(1), match.group(2) or ""
        granted_match, flags_match = _GRANTED.search(details), _FLAGS.search(details)
        granted = granted_match.group(1) if granted_match else None
        flags = flags_match.group(1) if flags_match else None
        if list_name == "requested permissions":
            requested.append(name)
        elif list_name == "runtime permissions":
            if current_user == first_user:  # the first user's grants only
                states.append(PermissionState(name, granted == "true", "runtime", _flags(flags)))
        else:  # install permissions, or the old "grantedPermissions" list of granted names
            is_granted = granted == "true" or (
                granted is None and list_name == "grantedPermissions"
            )
            states.append(PermissionState(name, is_granted, "install", _flags(flags)))
    return tuple(requested), tuple(states)


def _flags(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(flag for flag in re.split(r"[|\s]+", text) if flag)


def _launchable_activity(lines: list[str], package: str) -> Component | None:
    """The package's activity filtered for MAIN + a launcher category, if the dump shows it.

    ``dumpsys package PKG`` prints each filter's ``Action:``/``Category:`` lines; a whole-device
    ``dumpsys package`` only prints ``(N filters)``, which cannot tell a launcher apart.
    """
    in_table = in_main = False
    candidate: Component | None = None
    found: dict[str, Component] = {}
    for line in lines:
        if line and not line[0].isspace():
            in_table = line.rstrip() == "Activity Resolver Table:"
            in_main = False
            continue
        stripped = line.strip()
        if not in_table or not stripped:
            continue
        if stripped.endswith(":") and " " not in stripped:
            in_main = stripped == "android.intent.action.MAIN:"
            candidate = None
            continue
        entry = _RESOLVER_ENTRY.match(stripped)
        if entry is not None:
            candidate = parse_component(entry.group(1)) if in_main else None
            continue
        if candidate is not None and candidate.package == package:
            for category in _LAUNCHER_CATEGORIES:
                if stripped == f'Category: "{category}"':
                    found.setdefault(category, candidate)
    for category in _LAUNCHER_CATEGORIES:
        if category in found:
            return found[category]
    return None
