"""Installing an APK and checking that the device now has the version the APK declares."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from adbwire.device import packages
from adbwire.device.errors import TooLargeError, VerificationError
from adbwire.errors import DeviceCommandError
from adbwire.wire.client import AdbClient
from adbwire.wire.services.install_result import InstallOptions


@dataclass(frozen=True)
class Installed:
    package: str
    version_name: str | None
    version_code: int | None
    method: str


def install_apk(
    client: AdbClient,
    apk: Path,
    options: InstallOptions,
    *,
    cap: int,
    progress: Callable[[int, int], None] | None = None,
    timeout: float = 300.0,
) -> Installed:
    """Stream-install `apk`, then read the package back: the installed versionCode must be
    the one in the APK's manifest."""
    size = apk.stat().st_size
    if size > cap:
        raise TooLargeError(f"{apk.name} is {size} bytes, over the {cap}-byte transfer cap")
    result = client.install(apk, options, progress=progress, timeout=timeout)
    if not result.ok:
        raise DeviceCommandError(f"installing {result.package} failed: {result.describe()}")
    info = packages.package_info(client, result.package)
    expected = result.version_code
    if expected is not None and info.version_code != expected:
        raise VerificationError(
            f"{result.package}: the device reports versionCode {info.version_code} after "
            f"installing an APK with versionCode {expected}"
        )
    return Installed(result.package, info.version_name, info.version_code, result.method.value)
