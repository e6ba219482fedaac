"""The install/uninstall/forward/reboot/root/tcpip/usb commands through `adbwire.cli.main`."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from adbwire.cli import forward, install, main, reboot, root, tcpip, uninstall
from tests.wire.services.axml_writer import make_apk
from tests.wire.services.fake_android import FakeAndroid
from tests.wire.services.loopback_servers import echo, loopback_server, wait_until

MINE = (install, uninstall, forward, reboot, root, tcpip)


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tuple(module for module in MINE if module not in main.COMMANDS)
    monkeypatch.setattr(main, "COMMANDS", (*main.COMMANDS, *missing))


def adbwire(android: FakeAndroid, *words: str) -> int:
    code: int = main.main(["-s", android.device.address, "--timeout", "15", *words])
    return code


def test_install_prints_like_adb(
    tmp_path: Path, android: FakeAndroid, capsys: pytest.CaptureFixture[str]
) -> None:
    apk = make_apk(tmp_path, "com.example.cli", 3, "0.3")
    assert adbwire(android, "install", "-r", "-g", "--user", "10", str(apk)) == 0
    out, err = capsys.readouterr()
    assert out == "Performing Streamed Install\nSuccess\n"
    assert "installing com.example.cli 0.3 (versionCode 3)" in err
    assert android.installs[0].flags == ["-r", "-g", "--user", "10"]


def test_install_failure_exits_1_with_the_code(
    tmp_path: Path, android: FakeAndroid, capsys: pytest.CaptureFixture[str]
) -> None:
    android.answer = lambda apk, flags: "Failure [INSTALL_FAILED_TEST_ONLY: installPackageLI]"
    assert adbwire(android, "install", str(make_apk(tmp_path))) == 1
    assert "INSTALL_FAILED_TEST_ONLY: installPackageLI" in capsys.readouterr().err


def test_install_push_mode(
    tmp_path: Path, android: FakeAndroid, capsys: pytest.CaptureFixture[str]
) -> None:
    assert adbwire(android, "install", "--no-streaming", "-t", str(make_apk(tmp_path))) == 0
    assert capsys.readouterr().out == "Performing Push Install\nSuccess\n"
    assert [(c.via, c.flags) for c in android.installs] == [("pm", ["-t"])]
    assert android.files == {}


def test_install_of_a_non_apk_is_a_usage_error(
    tmp_path: Path, android: FakeAndroid, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.apk"
    junk.write_text("hello")
    assert adbwire(android, "install", str(junk)) == 2
    assert "junk.apk" in capsys.readouterr().err
    assert android.device.opened == []


def test_uninstall(android: FakeAndroid, capsys: pytest.CaptureFixture[str]) -> None:
    assert adbwire(android, "uninstall", "-k", "com.example.app") == 0
    assert capsys.readouterr().out == "Success\n"
    assert android.shell_commands == ["cmd package uninstall -k com.example.app"]
    assert adbwire(android, "uninstall", "com.example;id") == 2
    assert len(android.device.opened) == 1


def test_uninstall_failure(android: FakeAndroid, capsys: pytest.CaptureFixture[str]) -> None:
    android.uninstall_answer = "Failure [DELETE_FAILED_INTERNAL_ERROR]"
    assert adbwire(android, "uninstall", "com.example.app") == 1
    assert "DELETE_FAILED_INTERNAL_ERROR" in capsys.readouterr().err


def test_forward_list_is_explained(
    android: FakeAndroid, capsys: pytest.CaptureFixture[str]
) -> None:
    assert adbwire(android, "forward", "--list") == 2
    assert "no background server" in capsys.readouterr().err


def test_forward_runs_until_the_device_goes_away(
    android: FakeAndroid, capsys: pytest.CaptureFixture[str]
) -> None:
    with loopback_server(echo) as server:
        outcome: list[int] = []
        runner = threading.Thread(
            target=lambda: outcome.append(
                adbwire(android, "forward", "tcp:0", f"tcp:{server.port}")
            )
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
        for device_side in android.device.connections:
            device_side.drop()
        runner.join(15)
    assert outcome == [1]
    assert "adbwire: error:" in capsys.readouterr().err


def test_reboot(android: FakeAndroid) -> None:
    assert adbwire(android, "reboot", "recovery") == 0
    assert android.device.opened == ["reboot:recovery"]


def test_reboot_rejects_unknown_modes(android: FakeAndroid) -> None:
    with pytest.raises(SystemExit) as caught:
        adbwire(android, "reboot", "dance")
    assert caught.value.code == 2


def test_root_reconnects_and_verifies(
    android: FakeAndroid, capsys: pytest.CaptureFixture[str]
) -> None:
    assert adbwire(android, "root") == 0
    out, err = capsys.readouterr()
    assert out == "restarting adbd as root\n"
    assert "adbd now runs as root" in err
    assert android.root and len(android.device.connections) == 2
    assert adbwire(android, "unroot") == 0
    assert not android.root


def test_root_refused_exits_1(android: FakeAndroid, capsys: pytest.CaptureFixture[str]) -> None:
    android.debuggable = False
    assert adbwire(android, "root") == 1
    assert "production builds" in capsys.readouterr().err


def test_tcpip_and_usb(android: FakeAndroid, capsys: pytest.CaptureFixture[str]) -> None:
    assert adbwire(android, "tcpip", "5555") == 0
    assert capsys.readouterr().out == "restarting in TCP mode port: 5555\n"
    assert adbwire(android, "usb") == 0
    assert capsys.readouterr().out == "restarting in USB mode\n"
    with pytest.raises(SystemExit):
        adbwire(android, "tcpip", "0")
