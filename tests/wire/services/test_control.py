"""reboot, root/unroot with reconnection, tcpip/usb and remount against the fake adbd."""

from __future__ import annotations

import time

import pytest

from adbwire.errors import (
    AdbTimeoutError,
    AuthRejectedError,
    CommandFailedError,
    ConnectFailedError,
    DeviceCommandError,
    StreamRefusedError,
    UsageError,
)
from adbwire.wire.connection import Connection
from adbwire.wire.services import control
from adbwire.wire.services.reconnect import reconnect, wait_disconnected
from tests.wire.services.conftest import Connect
from tests.wire.services.fake_android import ANDROID_8, FakeAndroid


def test_root_restarts_adbd_and_reconnects(
    android: FakeAndroid, connection: Connection, connect: Connect
) -> None:
    result = control.root(connection, reconnect_with=connect, wait=10)
    assert result.restarted and result.is_root is True
    assert result.message == "restarting adbd as root\n"
    assert result.connection is not None and result.connection is not connection
    assert connection.failure is not None
    assert "id -u" in android.shell_commands
    assert result.connection.failure is None


def test_unroot_reports_the_shell_uid(
    android: FakeAndroid, connection: Connection, connect: Connect
) -> None:
    android.root = True
    result = control.unroot(connection, reconnect_with=connect, wait=10)
    assert (result.restarted, result.is_root) == (True, False)


def test_root_when_already_root_keeps_the_connection(
    android: FakeAndroid, connection: Connection
) -> None:
    android.root = True
    result = control.root(connection)
    assert (result.restarted, result.is_root, result.connection) == (False, True, None)
    assert connection.failure is None


def test_unroot_when_not_root(connection: Connection) -> None:
    result = control.unroot(connection)
    assert (result.restarted, result.is_root) == (False, False)


def test_root_refused_on_a_production_build(android: FakeAndroid, connection: Connection) -> None:
    android.debuggable = False
    with pytest.raises(DeviceCommandError, match="production builds"):
        control.root(connection)
    assert connection.failure is None


def test_root_without_factory_reports_the_announced_state(connection: Connection) -> None:
    result = control.root(connection)
    assert (result.restarted, result.is_root, result.connection) == (True, True, None)
    assert connection.failure is not None


def test_a_restart_that_does_not_drop_the_link_is_closed_by_us(
    android: FakeAndroid, connection: Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    android.drop_on_restart = False
    monkeypatch.setattr(control, "DROP_WAIT_SECONDS", 0.2)
    result = control.root(connection)
    assert result.restarted and connection.failure is not None


def test_reconnect_retries_while_adbd_is_down(
    android: FakeAndroid, connection: Connection, connect: Connect
) -> None:
    android.refuse_reconnects = 3
    result = control.root(connection, reconnect_with=connect, wait=10)
    assert result.is_root is True
    assert android.device.turned_away == 3


def test_reconnect_gives_up_after_the_wait() -> None:
    attempts = 0

    def never() -> Connection:
        nonlocal attempts
        attempts += 1
        raise ConnectFailedError("refused")

    started = time.monotonic()
    with pytest.raises(AdbTimeoutError, match=r"did not come back within 0\.5 s.*refused"):
        reconnect(never, timeout=0.5)
    assert time.monotonic() - started < 3
    assert attempts >= 2


def test_reconnect_does_not_retry_what_waiting_cannot_fix() -> None:
    calls = 0

    def rejected() -> Connection:
        nonlocal calls
        calls += 1
        raise AuthRejectedError("key refused")

    with pytest.raises(AuthRejectedError):
        reconnect(rejected, timeout=5)
    assert calls == 1
    with pytest.raises(UsageError):
        reconnect(rejected, timeout=0)


def test_wait_disconnected(android: FakeAndroid, connection: Connection) -> None:
    assert wait_disconnected(connection, 0.1) is False
    for device_side in android.device.connections:
        device_side.drop()
    assert wait_disconnected(connection, 10) is True


def test_tcpip_and_usb(android: FakeAndroid, connect: Connect) -> None:
    first = connect()
    result = control.tcpip(first, 5556)
    assert result.message == "restarting in TCP mode port: 5556\n" and result.restarted
    assert "tcpip:5556" in android.device.opened
    assert first.failure is not None
    second = connect()
    back = control.usb(second, reconnect_with=connect, wait=10)
    assert back.message == "restarting in USB mode\n"
    assert back.connection is not None and back.connection.failure is None


@pytest.mark.parametrize("port", [0, -1, 65536, True])
def test_tcpip_checks_the_port_first(
    android: FakeAndroid, connection: Connection, port: int
) -> None:
    with pytest.raises(UsageError):
        control.tcpip(connection, port)
    assert android.device.opened == []


@pytest.mark.parametrize(
    ("mode", "service"),
    [
        (control.RebootMode.SYSTEM, "reboot:"),
        ("bootloader", "reboot:bootloader"),
        ("recovery", "reboot:recovery"),
        ("sideload", "reboot:sideload"),
        ("sideload-auto-reboot", "reboot:sideload-auto-reboot"),
    ],
)
def test_reboot_modes(
    android: FakeAndroid, connection: Connection, mode: str, service: str
) -> None:
    assert control.reboot(connection, mode) == ""
    assert android.device.opened == [service]
    assert wait_disconnected(connection, 10)


def test_bad_reboot_mode(android: FakeAndroid, connection: Connection) -> None:
    with pytest.raises(UsageError, match="unknown reboot mode"):
        control.reboot(connection, "bootloader; rm -rf /")
    assert android.device.opened == []


def test_remount_runs_the_remount_program(android: FakeAndroid, connection: Connection) -> None:
    assert control.remount(connection) == "remount succeeded\n"
    assert control.remount(connection, reboot_if_needed=True)
    assert android.shell_commands == ["remount", "remount -R"]


def test_remount_failure_carries_the_exit_status(
    android: FakeAndroid, connection: Connection
) -> None:
    android.remount_status = 1
    with pytest.raises(CommandFailedError, match="Not running as root") as caught:
        control.remount(connection)
    assert caught.value.exit_code == 1


@pytest.mark.parametrize("features", [ANDROID_8])
def test_remount_service_on_older_devices(android: FakeAndroid, connection: Connection) -> None:
    assert "succeeded" in control.remount(connection)
    assert android.device.opened == ["remount:"]


def test_refused_service_is_not_a_disconnect(android: FakeAndroid, connection: Connection) -> None:
    android.device.serve("usb:", lambda _rest, _conn: None)
    with pytest.raises(StreamRefusedError):
        control.usb(connection)
    assert connection.failure is None
