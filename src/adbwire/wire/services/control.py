"""Device control: reboot, adbd as root or not, adbd over TCP or USB, remount.

These are adbd's own services (daemon/services.cpp, restart_service.cpp). `root:`,
`unroot:`, `tcpip:` and `usb:` answer one line and, when they change something, adbd
restarts and the connection drops. With a `reconnect` factory, `root`/`unroot` (and
`tcpip`/`usb`) wait for the drop, connect again within a bounded wait and, for root,
check the new state with `id -u`; the result carries the new connection.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum

from adbwire.errors import (
    AdbTimeoutError,
    CommandFailedError,
    DeviceCommandError,
    DisconnectedError,
    UsageError,
)
from adbwire.wire.connection import Connection
from adbwire.wire.services import shell as shell_service
from adbwire.wire.services.reconnect import ConnectionFactory, reconnect, wait_disconnected
from adbwire.wire.timeouts import Deadline

log = logging.getLogger(__name__)

MAX_ANSWER_BYTES = 4096
DROP_WAIT_SECONDS = 5.0
"""How long to wait for the old connection to drop after adbd said it restarts."""


class RebootMode(str, Enum):
    SYSTEM = ""
    BOOTLOADER = "bootloader"
    RECOVERY = "recovery"
    SIDELOAD = "sideload"
    SIDELOAD_AUTO_REBOOT = "sideload-auto-reboot"
    FASTBOOT = "fastboot"


@dataclass(frozen=True)
class AdbdRestart:
    """What `root`, `unroot`, `tcpip` or `usb` did."""

    message: str
    """adbd's answer, e.g. 'restarting adbd as root'."""
    restarted: bool
    """adbd restarts: the connection the call was made on is gone."""
    is_root: bool | None = None
    """adbd's uid is 0 now (checked with `id -u` after reconnecting, else from the
    answer); None when unknown."""
    connection: Connection | None = None
    """The new connection, when a reconnect factory was given and adbd restarted."""


def reboot(
    connection: Connection,
    mode: RebootMode | str = RebootMode.SYSTEM,
    *,
    timeout: float | None = None,
) -> str:
    """Ask the device to reboot (into `mode`); returns any text the device printed.

    The connection drops when the device goes down; that is the expected end. Call
    `reconnect` afterwards to wait for the device to come back.
    """
    mode = _reboot_mode(mode)
    deadline = _deadline(connection, timeout, f"reboot {mode.value or 'system'}")
    text = _ask(connection, f"reboot:{mode.value}", deadline, drop_expected=True)
    if "failed" in text.lower():
        raise DeviceCommandError(f"reboot refused by the device: {text.strip()}")
    return text


def root(
    connection: Connection,
    *,
    reconnect_with: ConnectionFactory | None = None,
    wait: float = 30.0,
    timeout: float | None = None,
) -> AdbdRestart:
    """Restart adbd as root (debuggable builds only; otherwise DeviceCommandError)."""
    return _restart_user(connection, "root", reconnect_with, wait, timeout)


def unroot(
    connection: Connection,
    *,
    reconnect_with: ConnectionFactory | None = None,
    wait: float = 30.0,
    timeout: float | None = None,
) -> AdbdRestart:
    """Restart adbd as the shell user."""
    return _restart_user(connection, "unroot", reconnect_with, wait, timeout)


def tcpip(
    connection: Connection,
    port: int,
    *,
    reconnect_with: ConnectionFactory | None = None,
    wait: float = 30.0,
    timeout: float | None = None,
) -> AdbdRestart:
    """Restart adbd listening on TCP `port` (a factory for the new address may follow)."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port <= 65535:
        raise UsageError(f"tcpip: invalid port {port!r} (expected 1 to 65535)")
    deadline = _deadline(connection, timeout, f"tcpip {port}")
    text = _ask(connection, f"tcpip:{port}", deadline, drop_expected=True)
    if "restarting" not in text:
        raise DeviceCommandError(f"tcpip {port}: {text.strip() or 'no answer from adbd'}")
    return _after_restart(connection, text, reconnect_with, wait, check_root=False)


def usb(
    connection: Connection,
    *,
    reconnect_with: ConnectionFactory | None = None,
    wait: float = 30.0,
    timeout: float | None = None,
) -> AdbdRestart:
    """Restart adbd listening on USB only (a TCP connection is then lost for good)."""
    deadline = _deadline(connection, timeout, "usb")
    text = _ask(connection, "usb:", deadline, drop_expected=True)
    if "restarting" not in text:
        raise DeviceCommandError(f"usb: {text.strip() or 'no answer from adbd'}")
    return _after_restart(connection, text, reconnect_with, wait, check_root=False)


def remount(
    connection: Connection, *, reboot_if_needed: bool = False, timeout: float | None = None
) -> str:
    """Remount /system, /vendor … read-write (needs root and, often, verity off).

    With `remount_shell` (Android 10+) this runs the device's `remount` program in a
    shell, as adb does, so its exit status is known; older devices get `remount:`.
    """
    if "remount_shell" in connection.features:
        command = "remount -R" if reboot_if_needed else "remount"
        result = shell_service.run(connection, command, timeout=timeout)
        text = (result.stdout + result.stderr).decode("utf-8", errors="replace")
        if result.exit_code != 0:
            raise CommandFailedError(command, result.exit_code, text)
        return text
    deadline = _deadline(connection, timeout, "remount")
    service = "remount:-R" if reboot_if_needed else "remount:"
    text = _ask(connection, service, deadline, drop_expected=reboot_if_needed)
    if "succeeded" not in text:
        raise DeviceCommandError(f"remount failed: {text.strip() or 'no answer from adbd'}")
    return text


# ----------------------------------------------------------------- internals


def _reboot_mode(mode: RebootMode | str) -> RebootMode:
    try:
        return RebootMode(mode)
    except ValueError:
        names = ", ".join(m.value or "'' (system)" for m in RebootMode)
        raise UsageError(f"unknown reboot mode {mode!r}; expected one of {names}") from None


def _deadline(connection: Connection, timeout: float | None, what: str) -> Deadline:
    return Deadline(connection.timeouts.operation if timeout is None else timeout, what)


def _ask(connection: Connection, service: str, deadline: Deadline, *, drop_expected: bool) -> str:
    """Open `service` and read its answer until the stream ends (or the link drops,
    when that is the expected end)."""
    parts: list[bytes] = []
    total = 0
    try:
        with connection.open_stream(service, deadline.remaining()) as stream:
            while total < MAX_ANSWER_BYTES and (chunk := stream.read(None, deadline)):
                parts.append(chunk)
                total += len(chunk)
    except DisconnectedError:
        if not drop_expected:
            raise
        log.debug("%s: the connection dropped, as expected", service)
    except AdbTimeoutError:
        if not (drop_expected and parts):
            raise
    return b"".join(parts).decode("utf-8", errors="replace")


def _restart_user(
    connection: Connection,
    command: str,
    factory: ConnectionFactory | None,
    wait: float,
    timeout: float | None,
) -> AdbdRestart:
    deadline = _deadline(connection, timeout, command)
    text = _ask(connection, f"{command}:", deadline, drop_expected=True)
    answer = text.strip()
    if "restarting" in answer:
        return _after_restart(connection, text, factory, wait, check_root=True)
    if "already running as root" in answer:
        return AdbdRestart(text, restarted=False, is_root=True)
    if "not running as root" in answer:
        return AdbdRestart(text, restarted=False, is_root=False)
    raise DeviceCommandError(f"{command}: {answer or 'no answer from adbd'}")


def _after_restart(
    connection: Connection,
    text: str,
    factory: ConnectionFactory | None,
    wait: float,
    *,
    check_root: bool,
) -> AdbdRestart:
    expected_root: bool | None = None
    if check_root:
        expected_root = "as root" in text and "non root" not in text
    if not wait_disconnected(connection, DROP_WAIT_SECONDS):
        log.debug("adbd said it restarts but the connection is still up; closing it")
    connection.close()
    if factory is None:
        return AdbdRestart(text, restarted=True, is_root=expected_root)
    deadline = Deadline(wait, "waiting for adbd to come back")
    while True:
        remaining = deadline.remaining() or 0.0
        if remaining <= 0:
            raise AdbTimeoutError(f"adbd did not come back within {wait:g} s")
        new = reconnect(factory, timeout=remaining)
        if not check_root:
            return AdbdRestart(text, restarted=True, connection=new)
        try:
            is_root = _is_root(new, deadline)
        except DisconnectedError:
            # We reached the old adbd just before it went away: try again.
            new.close()
            continue
        return AdbdRestart(text, restarted=True, is_root=is_root, connection=new)


def _is_root(connection: Connection, deadline: Deadline) -> bool | None:
    remaining = deadline.remaining()
    timeout = connection.timeouts.operation if remaining is None else max(remaining, 1.0)
    result = shell_service.run(connection, "id -u", timeout=timeout)
    uid = result.stdout.decode("ascii", errors="replace").strip()
    if result.exit_code != 0 or not uid.isdigit():
        return None
    return uid == "0"
