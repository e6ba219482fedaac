"""Google's adb against the simulated device: if adb accepts it, the simulator speaks ADB.

Every test gets its own adb server (own port, HOME, TMPDIR) and kills it afterwards; the
device trusts the key that adb generated in that HOME, unless the test is about auth.
"""

from __future__ import annotations

import re
import socket
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.testing import DEVICE_FEATURES, DeviceOptions, SimulatedDevice, running_device
from tests.interop.adb_oracle import ADB, AdbOracle, free_port
from tests.simulator.protocol_standin import StandinUserland, pattern

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]


@pytest.fixture
def device(adb: AdbOracle) -> Iterator[SimulatedDevice]:
    options = DeviceOptions(authorized_keys=(adb.public_key,))
    with running_device(options, StandinUserland) as simulated:
        adb.attach(simulated.serial)
        yield simulated


def standin(device: SimulatedDevice) -> StandinUserland:
    assert isinstance(device.userland, StandinUserland)
    return device.userland


def test_devices_lists_the_model(adb: AdbOracle, device: SimulatedDevice) -> None:
    listing = adb.ok("devices", "-l").decode()
    line = next(line for line in listing.splitlines() if line.startswith(device.serial))
    assert re.search(r"\sdevice\s", line), line
    assert "model:Standin_Phone_1" in line
    assert "product:standin_phone" in line
    assert "device:standin" in line
    assert adb.ok("-s", device.serial, "get-state").strip() == b"device"


def test_shell_output_exit_codes_and_stderr(adb: AdbOracle, device: SimulatedDevice) -> None:
    serial = device.serial
    assert adb.ok("-s", serial, "shell", "echo", "hi") == b"hi\n"
    assert adb.run("-s", serial, "shell", "false").returncode == 1
    assert adb.run("-s", serial, "shell", "exit", "42").returncode == 42
    split = adb.run("-s", serial, "shell", "echo", "oops", ">&2")
    assert (split.returncode, split.stdout, split.stderr) == (0, b"", b"oops\n")
    missing = adb.run("-s", serial, "shell", "frobnicate")
    assert missing.returncode == 127
    assert missing.stderr == b"/system/bin/sh: frobnicate: inaccessible or not found\n"


def test_shell_stdin(adb: AdbOracle, device: SimulatedDevice) -> None:
    data = b"first line\nsecond line\n"
    assert adb.ok("-s", device.serial, "shell", "cat", input=data) == data


def test_exec_out_is_binary_safe(adb: AdbOracle, device: SimulatedDevice) -> None:
    size = 2_000_003
    assert adb.ok("-s", device.serial, "exec-out", "bytes", str(size)) == pattern(size)


def test_push_and_pull_are_byte_identical(
    adb: AdbOracle, device: SimulatedDevice, tmp_path: Path
) -> None:
    original = tmp_path / "original.bin"
    original.write_bytes(pattern(6 * 1024 * 1024 + 123))
    adb.ok("-s", device.serial, "push", str(original), "/sdcard/Download/copy.bin")
    assert device.files.read_bytes("/sdcard/Download/copy.bin") == original.read_bytes()
    back = tmp_path / "back.bin"
    adb.ok("-s", device.serial, "pull", "/sdcard/Download/copy.bin", str(back))
    assert back.read_bytes() == original.read_bytes()


def test_push_and_pull_a_directory(adb: AdbOracle, device: SimulatedDevice, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.txt").write_bytes(b"alpha")
    (tree / "sub" / "b.bin").write_bytes(pattern(70_000))
    adb.ok("-s", device.serial, "push", str(tree), "/data/local/tmp/")
    assert device.files.read_bytes("/data/local/tmp/tree/sub/b.bin") == pattern(70_000)
    out = tmp_path / "out"
    out.mkdir()
    adb.ok("-s", device.serial, "pull", "/data/local/tmp/tree", str(out))
    assert (out / "tree" / "a.txt").read_bytes() == b"alpha"
    assert (out / "tree" / "sub" / "b.bin").read_bytes() == pattern(70_000)


def test_pull_of_a_missing_file_fails_cleanly(
    adb: AdbOracle, device: SimulatedDevice, tmp_path: Path
) -> None:
    done = adb.run("-s", device.serial, "pull", "/sdcard/nope.bin", str(tmp_path / "x"))
    assert done.returncode != 0
    assert b"No such file or directory" in done.stdout + done.stderr  # adb 29 uses stdout


def minimal_apk(path: Path) -> bytes:
    with zipfile.ZipFile(path, "w") as apk:
        apk.writestr("AndroidManifest.xml", b"\x03\x00\x08\x00" + bytes(60))
        apk.writestr("classes.dex", b"dex\n035\x00" + bytes(100))
    return path.read_bytes()


def test_install(adb: AdbOracle, device: SimulatedDevice, tmp_path: Path) -> None:
    apk = minimal_apk(tmp_path / "app.apk")
    output = adb.ok("-s", device.serial, "install", "-r", str(tmp_path / "app.apk"))
    assert b"Success" in output
    data, size, options = standin(device).installs[-1]
    assert (data, size) == (apk, len(apk))
    assert "-r" in options


def test_install_through_exec_when_abb_exec_is_missing(adb: AdbOracle, tmp_path: Path) -> None:
    features = tuple(f for f in DEVICE_FEATURES if f not in {"abb_exec", "abb"})
    options = DeviceOptions(authorized_keys=(adb.public_key,), features=features)
    with running_device(options, StandinUserland) as older:
        adb.attach(older.serial)
        apk = minimal_apk(tmp_path / "app.apk")
        assert b"Success" in adb.ok("-s", older.serial, "install", str(tmp_path / "app.apk"))
        assert standin(older).installs[-1][0] == apk


def test_install_failure_is_reported(
    adb: AdbOracle, device: SimulatedDevice, tmp_path: Path
) -> None:
    minimal_apk(tmp_path / "bad.apk")
    standin(device).install_answer = (False, "Failure [INSTALL_FAILED_OLDER_SDK: too old]")
    done = adb.run("-s", device.serial, "install", str(tmp_path / "bad.apk"))
    assert done.returncode != 0
    assert b"INSTALL_FAILED_OLDER_SDK" in done.stdout + done.stderr


def test_reboot(adb: AdbOracle, device: SimulatedDevice) -> None:
    adb.ok("-s", device.serial, "reboot")
    assert standin(device).reboots == [""]


def test_root_restarts_adbd_and_persists(adb: AdbOracle, device: SimulatedDevice) -> None:
    assert b"restarting adbd as root" in adb.ok("-s", device.serial, "root")
    assert device.root
    adb.ok("-s", device.serial, "wait-for-device", timeout=20)
    assert adb.ok("-s", device.serial, "root").strip() == b"adbd is already running as root"


def test_forward_reaches_a_port_on_the_device(adb: AdbOracle, device: SimulatedDevice) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    device_port = server.getsockname()[1]

    def echo_once() -> None:
        conn, _ = server.accept()
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data[::-1])

    thread = threading.Thread(target=echo_once, daemon=True)
    thread.start()
    local_port = free_port()
    adb.ok("-s", device.serial, "forward", f"tcp:{local_port}", f"tcp:{device_port}")
    try:
        with socket.create_connection(("127.0.0.1", local_port), timeout=10) as client:
            client.sendall(b"stressed")
            assert client.recv(100) == b"desserts"
    finally:
        adb.run("-s", device.serial, "forward", "--remove", f"tcp:{local_port}")
        server.close()
        thread.join(10)


def test_unknown_key_is_unauthorized_until_allowed(adb: AdbOracle) -> None:
    with running_device(DeviceOptions(), StandinUserland) as locked:
        answer = adb.run("connect", locked.serial)
        assert b"failed to authenticate" in answer.stdout + answer.stderr
        assert adb.state_of(locked.serial) == "unauthorized"
        assert adb.run("-s", locked.serial, "shell", "echo", "x").returncode != 0
        assert locked.approve_pending_keys() == [adb.public_key]
        adb.ok("-s", locked.serial, "wait-for-device", timeout=20)
        assert adb.state_of(locked.serial) == "device"
        assert adb.ok("-s", locked.serial, "shell", "echo", "allowed") == b"allowed\n"


def test_scripted_userland_through_adb(adb: AdbOracle) -> None:
    """The seam to the real userland: banner properties, commands, and root state."""
    pytest.importorskip("adbwire.testing.userland", reason="the scripted userland is not there")
    options = DeviceOptions(authorized_keys=(adb.public_key,))
    with running_device(options) as real:
        adb.attach(real.serial)
        model = adb.ok("-s", real.serial, "shell", "getprop", "ro.product.model").strip()
        listing = adb.ok("devices", "-l").decode()
        assert f"model:{model.decode().replace(' ', '_')}" in listing
        assert adb.ok("-s", real.serial, "shell", "id").startswith(b"uid=2000(shell)")
        assert b"restarting adbd as root" in adb.ok("-s", real.serial, "root")
        adb.ok("-s", real.serial, "wait-for-device", timeout=20)
        assert adb.ok("-s", real.serial, "shell", "id").startswith(b"uid=0(root)")
