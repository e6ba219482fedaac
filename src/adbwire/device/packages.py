"""Installed packages: list, inspect, uninstall, clear data, grant and revoke permissions.

State-changing operations read the device back and report what is now true, so a command
that "succeeded" without effect is an error, not a silent success.
"""

from __future__ import annotations

from adbwire.device import commands, validate
from adbwire.device.errors import NotFoundError, VerificationError
from adbwire.device.parsers import (
    PackageEntry,
    PackageInfo,
    parse_package_info,
    parse_package_list,
    parse_pm_path,
)
from adbwire.errors import DeviceCommandError
from adbwire.wire.client import AdbClient


def list_packages(
    client: AdbClient, *, contains: str | None = None, third_party_only: bool = False
) -> list[PackageEntry]:
    """Installed packages sorted by name; `contains` filters on the host (never sent)."""
    argv = ["pm", "list", "packages", "-U"]
    if third_party_only:
        argv.append("-3")
    entries = parse_package_list(commands.text(client, argv))
    needle = (contains or "").lower()
    return sorted((e for e in entries if needle in e.name.lower()), key=lambda e: e.name)


def is_installed(client: AdbClient, package: str) -> bool:
    result = commands.run(client, ["pm", "path", validate.package_name(package)])
    return bool(parse_pm_path(commands.decode(result.stdout)))


def require_installed(client: AdbClient, package: str) -> None:
    if not is_installed(client, package):
        raise NotFoundError(f"package {package!r} is not installed on {client.serial}")


def package_info(client: AdbClient, package: str) -> PackageInfo:
    text = commands.text(client, ["dumpsys", "package", validate.package_name(package)])
    info = parse_package_info(text, package)
    if info is None:
        raise NotFoundError(f"package {package!r} is not installed on {client.serial}")
    return info


def uninstall(client: AdbClient, package: str, *, keep_data: bool = False) -> str:
    require_installed(client, package)
    argv = ["pm", "uninstall", *(["-k"] if keep_data else []), package]
    result = commands.run(client, argv)
    reply = (commands.decode(result.stdout) + commands.decode(result.stderr)).strip()
    if "Success" not in reply:
        raise DeviceCommandError(f"pm uninstall {package}: {reply[:300] or 'no reply'}")
    if is_installed(client, package):
        raise VerificationError(f"pm uninstall {package} said Success but it is still installed")
    return reply


def clear_data(client: AdbClient, package: str) -> None:
    require_installed(client, package)
    result = commands.run(client, ["pm", "clear", package])
    reply = (commands.decode(result.stdout) + commands.decode(result.stderr)).strip()
    if result.exit_code != 0 or "Success" not in reply:
        raise DeviceCommandError(f"pm clear {package}: {reply[:300] or 'failed'}")


def set_permission(client: AdbClient, package: str, permission: str, *, grant: bool) -> bool:
    """Grant or revoke a runtime permission; returns the granted state read back."""
    validate.permission_name(permission)
    info = package_info(client, package)
    if permission not in info.requested_permissions and permission not in {
        p.name for p in info.permissions
    }:
        raise NotFoundError(f"{package} does not request {permission}")
    verb = "grant" if grant else "revoke"
    commands.text(client, ["pm", verb, package, permission])
    now = permission in package_info(client, package).granted_permissions
    if now != grant:
        raise VerificationError(
            f"pm {verb} {package} {permission}: the permission is still "
            f"{'not ' if not now else ''}granted (install-time permissions cannot change)"
        )
    return now
