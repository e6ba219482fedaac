"""reboot, root/unroot with reconnection, tcpip/usb and remount against the simulated device."""

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
from adbwire.testing import SimulatedDevice
from adbwire.wire.connection import Connection
from adbwire.wire.services import control
from adbwire.wire.services.reconnect import reconnect, wait_disconnected
from tests.wire.services.conftest import ANDROID_8, Connect


def test_root_restarts_adbd_and_reconnects(
    device: SimulatedDevice, connection: Connection, connect: Connect
) -> None:
    result = control.root(connection, reconnect_with=connect, wait=10)
    assert result.restarted and result.is_root is True
    assert result.message == "restarting adbd as root\n"
    assert result.connection is not None and result.connection is not connection
    assert connection.failure is not None
    assert device.services_opened[0] == "root:"
    assert device.services_opened[-1].endswith(":id -u")  # the uid checked on the new link
    assert result.connection.failure is None


def test_unroot_reports_the_shell_uid(
    device: SimulatedDevice, connection: Connection, connect: Connect
) -> None:
    device.state.set_root(True)
    result = control.unroot(connection, reconnect_with=connect, wait=10)
    assert (result.restarted, result.is_root) == (True, False)


def test_root_when_already_root_keeps_the_connection(
    device: SimulatedDevice, connection: Connection
) -> None:
    device.state.set_root(True)
    result = control.root(connection)
    assert (result.restarted, result.is_root, result.connection) == (False, True, None)
    assert connection.failure is None


def test_unroot_when_not_root(connection: Connection) -> None:
    result = control.unroot(connection)
    assert (result.restarted, result.is_root) == (False, False)


@pytest.mark.parametrize("device_options", [{"debuggable": False}])
def test_root_refused_on_a_production_build(connection: Connection) -> None:
    with pytest.raises(DeviceCommandError, match="production builds"):
        control.root(connection)
    assert connection.failure is None


def test_root_without_factory_reports_the_announced_state(connection: Connection) -> None:
    result = control.root(connection)
    assert (result.restarted, result.is_root, result.connection) == (True, True, None)
    assert connection.failure is not None


def test_a_restart_that_does_not_drop_the_link_is_closed_by_us(
    device: SimulatedDevice, connection: Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    device.faults.keep_link_on_restart = True
    monkeypatch.setattr(control, "DROP_WAIT_SECONDS", 0.2)
    result = control.root(connection)
    assert result.restarted and connection.failure is not None


def test_reconnect_retries_while_adbd_is_down(
    device: SimulatedDevice, connection: Connection, connect: Connect
) -> None:
    device.faults.turn_away_connections = 3
    result = control.root(connection, reconnect_with=connect, wait=10)
    assert result.is_root is True
    assert device.faults.turned_away == 3


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


def test_wait_disconnected(device: SimulatedDevice, connection: Connection) -> None:
    assert wait_disconnected(connection, 0.1) is False
    device.drop_connections()
    assert wait_disconnected(connection, 10) is True


def test_tcpip_and_usb(device: SimulatedDevice, connect: Connect) -> None:
    first = connect()
    result = control.tcpip(first, 5556)
    assert result.message == "restarting in TCP mode port: 5556\n" and result.restarted
    assert "tcpip:5556" in device.services_opened
    assert first.failure is not None
    second = connect()
    back = control.usb(second, reconnect_with=connect, wait=10)
    assert back.message == "restarting in USB mode\n"
    assert back.connection is not None and back.connection.failure is None


@pytest.mark.parametrize("port", [0, -1, 65536, True])
def test_tcpip_checks_the_port_first(
    device: SimulatedDevice, connection: Connection, port: int
) -> None:
    with pytest.raises(UsageError):
        control.tcpip(connection, port)
    assert device.services_opened == []


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
    device: SimulatedDevice, connection: Connection, mode: str, service: str
) -> None:
    assert control.reboot(connection, mode) == ""
    assert device.services_opened == [service]
    assert wait_disconnected(connection, 10)


def test_bad_reboot_mode(device: SimulatedDevice, connection: Connection) -> None:
    with pytest.raises(UsageError, match="unknown reboot mode"):
        control.reboot(connection, "bootloader; rm -rf /")
    assert device.services_opened == []


def test_remount_runs_the_remount_program(device: SimulatedDevice, connection: Connection) -> None:
    device.state.set_root(True)
    assert control.remount(connection) == "remount succeeded\n"
    assert control.remount(connection, reboot_if_needed=True)
    assert [s.rpartition(":")[2] for s in device.services_opened] == ["remount", "remount -R"]


def test_remount_failure_carries_the_exit_status(connection: Connection) -> None:
    with pytest.raises(CommandFailedError, match="Not running as root") as caught:
        control.remount(connection)
    assert caught.value.exit_code == 3  # fs_mgr_remount's NOT_ROOT


@pytest.mark.parametrize("features", [ANDROID_8])
def test_remount_service_on_older_devices(device: SimulatedDevice, connection: Connection) -> None:
    device.state.set_root(True)
    assert "succeeded" in control.remount(connection)
    assert device.services_opened == ["remount:"]


@pytest.mark.parametrize("features", [ANDROID_8])
def test_remount_service_refusal_is_a_device_error(connection: Connection) -> None:
    with pytest.raises(DeviceCommandError, match="Not running as root"):
        control.remount(connection)


def test_refused_service_is_not_a_disconnect(
    device: SimulatedDevice, connection: Connection
) -> None:
    device.faults.refuse_services = ("usb:",)
    with pytest.raises(StreamRefusedError):
        control.usb(connection)
    assert connection.failure is None
