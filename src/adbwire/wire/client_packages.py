"""`AdbClient`'s package methods: install, install-multiple, uninstall.

The install modules (zip reading, APK manifests) load on first use, so a command that
installs nothing does not pay for them (#20).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection
    from adbwire.wire.services.install_multiple import MultipleInstallResult
    from adbwire.wire.services.install_push import Progress as InstallProgress
    from adbwire.wire.services.install_result import (
        InstallMethod,
        InstallOptions,
        InstallResult,
        UninstallResult,
        UserSpec,
    )

LocalPath = str | os.PathLike[str]


class PackageMethods:
    """Mixed into `AdbClient`; each method is one call into `wire/services/install*`."""

    connection: Connection

    def install(
        self,
        apk: LocalPath,
        options: InstallOptions | None = None,
        *,
        method: InstallMethod | None = None,
        progress: InstallProgress | None = None,
        timeout: float | None = None,
    ) -> InstallResult:
        """Install an APK, streamed when the device can (`method` forces one way)."""
        from adbwire.wire.services import install  # noqa: PLC0415 - see the module's docstring

        return install.install(
            self.connection, apk, options, method=method, progress=progress, timeout=timeout
        )

    def install_multiple(
        self,
        apks: Sequence[LocalPath],
        options: InstallOptions | None = None,
        *,
        timeout: float | None = None,
    ) -> MultipleInstallResult:
        """Install a base APK and its splits in one session, as `adb install-multiple`
        (SplitWriteError names an APK the package manager refused; the session is then
        abandoned)."""
        from adbwire.wire.services import install_multiple  # noqa: PLC0415

        return install_multiple.install_multiple(self.connection, apks, options, timeout=timeout)

    def uninstall(
        self,
        package: str,
        *,
        keep_data: bool = False,
        user: UserSpec | None = None,
        timeout: float | None = None,
    ) -> UninstallResult:
        from adbwire.wire.services import install  # noqa: PLC0415

        return install.uninstall(
            self.connection, package, keep_data=keep_data, user=user, timeout=timeout
        )
