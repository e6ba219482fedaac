"""The install/uninstall/forward/reboot/root/tcpip/usb commands through `adbwire.cli.main`,
against a simulated device that asks for no key (these tests are about the commands)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from adbwire.cli import forward, install, main, reboot, root, tcpip, uninstall
from adbwire.testing import SimulatedDevice
from tests.wire.services.axml_writer import make_apk
from tests.wire.services.loopback_servers import echo, loopback_server, wait_until

MINE = (install, uninstall, forward, reboot, root, tcpip)


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tuple(module for module in MINE if module not in main.COMMANDS)
    monkeypatch.setattr(main, "COMMANDS", (*main.COMMANDS, *missing))


@pytest.fixture
def device_options() -> dict[str, Any]:
    return {"auth_required": False}


def adbwire(device: SimulatedDevice, *words: str) -> int:
    code: int = main.main(["-s", device.serial, "--timeout", "15", *words])
    return code


def shell_commands(device: SimulatedDevice) -> list[str]:
    return [s.partition(":")[2] for s in device.services_opened if s.startswith("shell")]


def test_install_prints_like_adb(
    tmp_path: Path, device: SimulatedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    apk = make_apk(tmp_path, "com.example.cli", 3, "0.3")
    assert adbwire(device, "install", "-r", "-g", "--user", "10", str(apk)) == 0
    out, err = capsys.readouterr()
    assert out == "Performing Streamed Install\nSuccess\n"
    assert "installing com.example.cli 0.3 (versionCode 3)" in err
    [service] = [s for s in device.services_opened if "install" in s]
    assert service.startswith("abb_exec:package\0install\0-r\0-g\0--user\00010\0-S\0")


def test_install_failure_exits_1_with_the_code(
    tmp_path: Path, device: SimulatedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "new").mkdir()
    (tmp_path / "old").mkdir()
    assert adbwire(device, "install", str(make_apk(tmp_path / "new", version_code=9))) == 0
    assert adbwire(device, "install", str(make_apk(tmp_path / "old", version_code=8))) == 1
    assert "INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected" in capsys.readouterr().err


def test_install_push_mode(
    tmp_path: Path, device: SimulatedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    assert adbwire(device, "install", "--no-streaming", "-t", str(make_apk(tmp_path))) == 0
    assert capsys.readouterr().out == "Performing Push Install\nSuccess\n"
    [pm] = [c for c in shell_commands(device) if c.startswith("pm install")]
    assert pm.split()[:3] == ["pm", "install", "-t"]
    assert not device.files.exists(pm.split()[-1])


def test_install_of_a_non_apk_is_a_usage_error(
    tmp_path: Path, device: SimulatedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.apk"
    junk.write_text("hello")
    assert adbwire(device, "install", str(junk)) == 2
    assert "junk.apk" in capsys.readouterr().err
    assert device.services_opened == []


def test_uninstall(
    tmp_path: Path, device: SimulatedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    assert adbwire(device, "install", str(make_apk(tmp_path, "com.example.app"))) == 0
    capsys.readouterr()
    assert adbwire(device, "uninstall", "-k", "com.example.app") == 0
    assert capsys.readouterr().out == "Success\n"
    assert shell_commands(device)[-1] == "cmd package uninstall -k com.example.app"
    opened = len(device.services_opened)
    assert adbwire(device, "uninstall", "com.example;id") == 2
    assert len(device.services_opened) == opened


def test_uninstall_failure(device: SimulatedDevice, capsys: pytest.CaptureFixture[str]) -> None:
    assert adbwire(device, "uninstall", "com.example.app") == 1
    assert "DELETE_FAILED_INTERNAL_ERROR" in capsys.readouterr().err


def test_forward_list_is_explained(
    device: SimulatedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    assert adbwire(device, "forward", "--list") == 2
    assert "no background server" in capsys.readouterr().err


def test_forward_runs_until_the_device_goes_away(
    device: SimulatedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    with loopback_server(echo) as server:
        outcome: list[int] = []
        runner = threading.Thread(
            target=lambda: outcome.append(adbwire(device, "forward", "tcp:0", f"tcp:{server.port}"))
        )
        runner.start()
        printed: list[str] = []

        def port_printed() -> bool:
            printed.append(capsys.readouterr().out)
            return "".join(printed).strip().isdigit()

        assert wait_until(port_printed)
        port = int("".join(printed))
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"through the cli")
            assert sock.recv(100) == b"through the cli"
        device.drop_connections()
        runner.join(15)
    assert outcome == [1]
    assert "adbwire: error:" in capsys.readouterr().err


def test_reboot(device: SimulatedDevice) -> None:
    assert adbwire(device, "reboot", "recovery") == 0
    assert device.services_opened == ["reboot:recovery"]


def test_reboot_rejects_unknown_modes(device: SimulatedDevice) -> None:
    with pytest.raises(SystemExit) as caught:
        adbwire(device, "reboot", "dance")
    assert caught.value.code == 2


def test_root_reconnects_and_verifies(
    device: SimulatedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    assert adbwire(device, "root") == 0
    out, err = capsys.readouterr()
    assert out == "restarting adbd as root\n"
    assert "adbd now runs as root" in err
    assert device.root
    assert device.services_opened[0] == "root:" and device.services_opened[-1].endswith("id -u")
    assert adbwire(device, "unroot") == 0
    assert not device.root


@pytest.mark.parametrize("device_options", [{"auth_required": False, "debuggable": False}])
def test_root_refused_exits_1(device: SimulatedDevice, capsys: pytest.CaptureFixture[str]) -> None:
    assert adbwire(device, "root") == 1
    assert "production builds" in capsys.readouterr().err


def test_tcpip_and_usb(device: SimulatedDevice, capsys: pytest.CaptureFixture[str]) -> None:
    assert adbwire(device, "tcpip", "5555") == 0
    assert capsys.readouterr().out == "restarting in TCP mode port: 5555\n"
    assert adbwire(device, "usb") == 0
    assert capsys.readouterr().out == "restarting in USB mode\n"
    with pytest.raises(SystemExit):
        adbwire(device, "tcpip", "0")
