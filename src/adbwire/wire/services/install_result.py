"""What the package manager answered, as typed results: install options, install and
uninstall outcomes, and the package-name check done before anything is sent.

The package manager ends its output with a line ``Success`` or
``Failure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install …]`` (the message part is
absent on old releases; ``Failure [not installed for 0]`` has no code at all).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from adbwire.errors import DeviceCommandError, UsageError
from adbwire.wire.services.apk_manifest import ApkInfo

PACKAGE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+")
"""Android's rule for application package names: two or more dot-separated segments, each
starting with a letter and holding only letters, digits and underscores."""
MAX_PACKAGE_NAME = 255

_CODE = re.compile(r"(?P<code>[A-Z][A-Z0-9_]*)(?::\s*(?P<message>.*))?", re.DOTALL)
_MAX_MESSAGE = 2000

UserSpec = int | Literal["all", "current"]


class InstallMethod(str, Enum):
    """How the APK reaches the package manager."""

    ABB_EXEC = "abb_exec"
    """`abb_exec:package\\0install\\0…-S\\0SIZE`: streamed to the binder (Android 11+)."""
    CMD = "cmd"
    """`exec:cmd package install … -S SIZE`: streamed through `cmd` (Android 7+)."""
    PUSH = "push"
    """Pushed to /data/local/tmp, installed with `pm install`, then deleted."""


def check_user(user: UserSpec | None) -> None:
    if user is None or user in ("all", "current"):
        return
    if isinstance(user, bool) or not isinstance(user, int) or user < 0:
        raise UsageError(f"user must be a user id >= 0, 'all' or 'current', not {user!r}")


@dataclass(frozen=True)
class InstallOptions:
    """What to allow, as meanings: adbwire turns them into package-manager flags."""

    replace: bool = False
    """Reinstall an app that is already installed, keeping its data (-r)."""
    downgrade: bool = False
    """Allow a lower versionCode than the installed one (-d; debuggable apps or builds)."""
    grant_permissions: bool = False
    """Grant every runtime permission the manifest asks for (-g)."""
    allow_test: bool = False
    """Allow an APK marked android:testOnly (-t)."""
    user: UserSpec | None = None
    """Install for this user id ('all', 'current'); None: the package manager's default."""

    def __post_init__(self) -> None:
        check_user(self.user)

    def flags(self) -> list[str]:
        flags = []
        if self.replace:
            flags.append("-r")
        if self.downgrade:
            flags.append("-d")
        if self.grant_permissions:
            flags.append("-g")
        if self.allow_test:
            flags.append("-t")
        if self.user is not None:
            flags += ["--user", str(self.user)]
        return flags


@dataclass(frozen=True)
class PackageManagerAnswer:
    ok: bool
    code: str | None
    """e.g. INSTALL_FAILED_ALREADY_EXISTS; None on success or when the answer has none."""
    message: str


def parse_answer(output: str) -> PackageManagerAnswer:
    """Read the package manager's verdict from its output (any lines before it ignored)."""
    text = output.replace("\r\n", "\n").strip()
    lines = [line.strip() for line in text.split("\n")]
    if "Success" in lines:
        return PackageManagerAnswer(True, None, "Success")
    start = text.rfind("Failure [")
    if start >= 0:
        inside = text[start + len("Failure [") :]
        end = inside.rfind("]")
        inside = (inside[:end] if end >= 0 else inside).strip()
        match = _CODE.fullmatch(inside)
        if match:
            message = (match.group("message") or "").strip()
            return PackageManagerAnswer(False, match.group("code"), _clip(message))
        return PackageManagerAnswer(False, None, _clip(inside))
    if not text:
        return PackageManagerAnswer(False, None, "the package manager gave no answer")
    return PackageManagerAnswer(False, None, _clip(text))


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + "…"


@dataclass(frozen=True)
class InstallResult:
    ok: bool
    code: str | None
    message: str
    apk: ApkInfo
    """What the APK's own manifest says it is (read before installing)."""
    method: InstallMethod
    output: str
    """The package manager's full output."""

    @property
    def package(self) -> str:
        return self.apk.package

    @property
    def version_code(self) -> int | None:
        return self.apk.version_code

    @property
    def version_name(self) -> str | None:
        return self.apk.version_name

    def check(self) -> InstallResult:
        """Raise DeviceCommandError unless the install succeeded."""
        if not self.ok:
            raise DeviceCommandError(f"installing {self.package} failed: {self.describe()}")
        return self

    def describe(self) -> str:
        if self.ok:
            return "Success"
        if self.code and self.message:
            return f"{self.code}: {self.message}"
        return self.code or self.message


@dataclass(frozen=True)
class UninstallResult:
    ok: bool
    code: str | None
    message: str
    package: str
    output: str

    def check(self) -> UninstallResult:
        if not self.ok:
            detail = f"{self.code}: {self.message}" if self.code else self.message
            raise DeviceCommandError(f"uninstalling {self.package} failed: {detail}")
        return self


def check_package_name(name: str) -> str:
    """Return `name` if it is a valid Android package name; UsageError otherwise."""
    if (
        not isinstance(name, str)
        or len(name) > MAX_PACKAGE_NAME
        or not PACKAGE_NAME.fullmatch(name)
    ):
        raise UsageError(
            f"{name!r} is not a valid package name (expected dot-separated segments such as "
            "com.example.app: letters, digits and underscores, each segment starting with a "
            "letter)"
        )
    return name
