"""Read-backs of device settings: display rotation, night mode, an app's locales."""

from __future__ import annotations

import re

from adbwire.device.errors import NotFoundError
from adbwire.device.parsers._text import output_error

_ROTATION = re.compile(r"^\s*mRotation=(\d)\b", re.MULTILINE)  # DisplayRotation (4.x-16)
_INFO_ROTATION = re.compile(r"\bDisplayInfo\{.*?, rotation (\d),")  # mDisplayInfo line
_NIGHT = re.compile(r"^Night mode: (\S+)\s*$", re.MULTILINE)
_LOCALES = re.compile(r"^Locales for (\S+) for user -?\d+ are \[(.*)\]\s*$", re.MULTILINE)
_UNKNOWN_PACKAGE = re.compile(r"^Unknown package (\S+) for userId", re.MULTILINE)


def parse_display_rotation(text: str) -> int | None:
    """0-3 (quarter turns) from ``dumpsys window displays``, or None when not printed."""
    for pattern in (_ROTATION, _INFO_ROTATION):
        match = pattern.search(text)
        if match and int(match.group(1)) <= 3:
            return int(match.group(1))
    return None


def parse_night_mode(text: str) -> str | None:
    """``yes``, ``no``, ``auto``, ``custom_schedule``… from ``cmd uimode night``."""
    match = _NIGHT.search(text)
    return match.group(1) if match else None


def parse_app_locales(text: str) -> tuple[str, ...]:
    """Language tags from ``cmd locale get-app-locales PKG`` (empty: the system's).

    Raises NotFoundError for ``Unknown package …`` (which the command prints with status 0).
    """
    unknown = _UNKNOWN_PACKAGE.search(text)
    if unknown:
        raise NotFoundError(f"no package {unknown.group(1)} on the device")
    match = _LOCALES.search(text)
    if match is None:
        raise output_error("cmd locale get-app-locales", "no locale list in the answer", text)
    return tuple(tag for tag in match.group(2).split(",") if tag)
