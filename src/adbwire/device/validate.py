"""Argument checks for values that end up on a device command line.

Each check raises :class:`~adbwire.errors.UsageError` (nothing was sent) and returns the
value, so it can be used inline. Quoting (``adbwire.wire.shell_quote``) is what keeps a
value from starting a second command; these checks keep nonsense from reaching the device
at all and give the caller a precise message.
"""

from __future__ import annotations

import posixpath
import re

from adbwire.errors import UsageError

PACKAGE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*$")
CLASS_RE = re.compile(r"^\.?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
PERMISSION_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+$")
PROPERTY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@:\-]*$")  # no leading "-": not an option
SERIAL_RE = re.compile(r"^[A-Za-z0-9\[][A-Za-z0-9._:\[\]%-]*$")
LOG_TAG_RE = re.compile(r"^[A-Za-z0-9_.$/][A-Za-z0-9_.$/\-]*$")
URI_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

MAX_PACKAGE = 255
MAX_PROPERTY_NAME = 128
MAX_PROPERTY_VALUE = 92  # PROP_VALUE_MAX: longer values are refused by the property service
MAX_SERIAL = 128
MAX_DEVICE_PATH = 1024
MAX_URI = 2048


def _check(pattern: re.Pattern[str], value: str, what: str, limit: int, example: str) -> str:
    if not value or len(value) > limit or not pattern.fullmatch(value):
        shown = value if len(value) <= 80 else value[:77] + "..."
        raise UsageError(f"invalid {what} {shown!r}: expected something like {example}")
    return value


def package_name(value: str) -> str:
    """An Android package name such as ``com.example.app``."""
    return _check(PACKAGE_RE, value, "package name", MAX_PACKAGE, "'com.example.app'")


def activity_name(value: str) -> str:
    """An activity class, fully qualified or relative (``.MainActivity``)."""
    return _check(CLASS_RE, value, "activity class", MAX_PACKAGE, "'.MainActivity'")


def permission_name(value: str) -> str:
    """A permission such as ``android.permission.CAMERA``."""
    return _check(PERMISSION_RE, value, "permission", MAX_PACKAGE, "'android.permission.CAMERA'")


def property_name(value: str) -> str:
    """A system property name such as ``ro.product.model``."""
    return _check(PROPERTY_RE, value, "property name", MAX_PROPERTY_NAME, "'debug.layout'")


def property_value(value: str) -> str:
    if len(value.encode()) > MAX_PROPERTY_VALUE or _CONTROL.search(value):
        raise UsageError(
            f"invalid property value: at most {MAX_PROPERTY_VALUE} bytes, no control characters"
        )
    return value


def serial(value: str) -> str:
    """A device serial: a USB serial, ``HOST:PORT``, ``emulator-5554`` or an mDNS name."""
    return _check(SERIAL_RE, value, "serial", MAX_SERIAL, "'emulator-5554' or '127.0.0.1:5555'")


def log_tag(value: str) -> str:
    return _check(LOG_TAG_RE, value, "log tag", 64, "'ActivityManager'")


def device_path(value: str) -> str:
    """An absolute device path, normalised, with no ``..`` component and no control chars."""
    if not value.startswith("/") or len(value) > MAX_DEVICE_PATH or _CONTROL.search(value):
        raise UsageError(
            f"invalid device path {value[:80]!r}: give an absolute path like /sdcard/x"
        )
    if ".." in value.split("/"):
        raise UsageError(f"invalid device path {value[:80]!r}: '..' is not allowed")
    normalised = posixpath.normpath(value)
    return "/" + normalised.lstrip("/")  # normpath keeps a leading '//'


def uri(value: str) -> str:
    """A URI with a scheme (``https://...``, ``myapp://path``), no spaces or control chars."""
    if (
        len(value) > MAX_URI
        or not URI_SCHEME_RE.match(value)
        or _CONTROL.search(value)
        or " " in value
    ):
        raise UsageError(f"invalid URI {value[:80]!r}: expected scheme:... with no spaces")
    return value


def is_under(path: str, roots: tuple[str, ...]) -> bool:
    """Whether a normalised absolute device path is one of `roots` or below one."""
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)
