"""Google's adb against the simulated device's userland: what scripts check behaves as on a
device (transfers verified by the device's own md5sum, dd, -tt terminals, ps across
sessions, owners and modes after push, SIGHUP, abb and cmd)."""

from __future__ import annotations

import hashlib
import os
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from tests.interop.adb_oracle import ADB, AdbOracle, free_port

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]
TMP = "/data/local/tmp"
WAIT = 20.0


@pytest.fixture
def device(adb: AdbOracle) -> Iterator[SimulatedDevice]:
    with running_device(DeviceOptions(authorized_keys=(adb.public_key,))) as simulated:
        adb.attach(simulated.serial)
        yield simulated


def shell(adb: AdbOracle, device: SimulatedDevice, *command: str) -> str:
    return adb.ok("-s", device.serial, "shell", *command).decode()


def wait_until_running(adb: AdbOracle, device: SimulatedDevice, name: str) -> int:
    """Poll with `pidof` through adb, bounded (the device offers nothing to await)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = adb.run("-s", device.serial, "shell", "pidof", name)
        if found.returncode == 0:
            return int(found.stdout.split()[0])
        time.sleep(0.05)
    raise AssertionError(f"{name} never ran")


def test_push_is_verified_by_the_devices_md5sum_and_keeps_adbds_mode_and_owner(
    adb: AdbOracle, device: SimulatedDevice, tmp_path: Path
) -> None:
    data = os.urandom(300_001)
    local = tmp_path / "blob.bin"
    local.write_bytes(data)
    local.chmod(0o600)
    script = tmp_path / "run.sh"
    script.write_bytes(b"#!/system/bin/sh\necho ran\n")
    script.chmod(0o755)
    adb.ok("-s", device.serial, "push", str(local), f"{TMP}/blob.bin")
    adb.ok("-s", device.serial, "push", str(script), f"{TMP}/run.sh")
    assert shell(adb, device, "md5sum", f"{TMP}/blob.bin") == (
        f"{hashlib.md5(data).hexdigest()}  {TMP}/blob.bin\n"
    )
    assert shell(adb, device, f"sha256sum {TMP}/blob.bin | cut -d' ' -f1") == (
        hashlib.sha256(data).hexdigest() + "\n"
    )
    # adbd copies the user bits to group and other, and the file is shell's
    assert shell(adb, device, f"stat -c '%A %U %G' {TMP}/blob.bin {TMP}/run.sh") == (
        "-rw-rw-rw- shell shell\n-rwxrwxrwx shell shell\n"
    )
    assert shell(adb, device, "sh", f"{TMP}/run.sh") == "ran\n"


def test_after_adb_root_pushes_belong_to_root(
    adb: AdbOracle, device: SimulatedDevice, tmp_path: Path
) -> None:
    adb.run("-s", device.serial, "root")
    adb.ok("-s", device.serial, "wait-for-device", timeout=20)
    assert shell(adb, device, "id", "-u") == "0\n"
    local = tmp_path / "f"
    local.write_bytes(b"x")
    adb.ok("-s", device.serial, "push", str(local), f"{TMP}/rooted")
    assert shell(adb, device, f"stat -c '%U %G' {TMP}/rooted") == "root root\n"


def test_data_local_tmp_and_system_bin_look_like_a_device(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    listing = shell(adb, device, "ls", "-ld", TMP)
    assert re.match(r"drwxrwx--x \d+ shell shell ", listing), listing
    names = shell(adb, device, "ls", "/system/bin").split()
    for command in ("toybox", "md5sum", "dd", "sed", "awk", "find", "sh", "am", "pm"):
        assert command in names
    assert shell(adb, device, "readlink", "/system/bin/md5sum") == "toybox\n"


def test_dd_writes_what_it_reports_and_pull_agrees(
    adb: AdbOracle, device: SimulatedDevice, tmp_path: Path
) -> None:
    done = adb.run("-s", device.serial, "shell", "dd", "if=/dev/urandom", f"of={TMP}/r",
                   "bs=4096", "count=25")  # fmt: skip
    assert done.returncode == 0
    assert re.fullmatch(
        rb"25\+0 records in\n25\+0 records out\n"
        rb"102400 bytes \(100 K\) copied, \d+\.\d{6} s, \S+ \S/s\n",
        done.stderr,
    ), done.stderr
    adb.ok("-s", device.serial, "pull", f"{TMP}/r", str(tmp_path / "r"))
    pulled = (tmp_path / "r").read_bytes()
    assert len(pulled) == 102400
    assert shell(adb, device, "md5sum", "-b", f"{TMP}/r") == hashlib.md5(pulled).hexdigest() + "\n"
    quiet = adb.run(
        "-s", device.serial, "shell", f"dd if={TMP}/r bs=1000 skip=1 count=2 status=none"
    )
    assert (quiet.stdout, quiet.stderr) == (pulled[1000:3000], b"")


def test_tt_gives_a_terminal_and_T_does_not(adb: AdbOracle, device: SimulatedDevice) -> None:
    with_pty = adb.run("-s", device.serial, "shell", "-tt", "[ -t 0 ]; echo $?; tty")
    assert with_pty.stdout == b"0\r\n/dev/pts/0\r\n"
    without = adb.run("-s", device.serial, "shell", "-T", "[ -t 0 ]; echo $?; tty")
    assert without.stdout == b"1\nnot a tty\n"


def test_ps_sees_a_command_of_another_session_and_kill_ends_it(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    other = subprocess.Popen(
        [str(ADB), "-s", device.serial, "shell", "sleep 30; echo status=$?"],
        env=adb.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        pid = wait_until_running(adb, device, "sleep")
        listing = shell(adb, device, "ps", "-A")
        row = next(line for line in listing.splitlines() if line.endswith(" sleep"))
        assert row.split()[:2] == ["shell", str(pid)]
        assert shell(adb, device, "ps", "-p", str(pid), "-o", "PID,NAME").split() == [
            "PID", "NAME", str(pid), "sleep",
        ]  # fmt: skip
        assert shell(adb, device, "cat", f"/proc/{pid}/cmdline") == "sleep\x0030\x00"
        shell(adb, device, "kill", str(pid))
        out, _ = other.communicate(timeout=WAIT)
        assert out == b"status=143\n"
    finally:
        if other.poll() is None:
            other.kill()
            other.wait(WAIT)


def test_closing_the_connection_sends_sighup_to_the_shell(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    other = subprocess.Popen(
        [str(ADB), "-s", device.serial, "shell", f"trap 'echo hup > {TMP}/hup' HUP; sleep 30"],
        env=adb.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_running(adb, device, "sleep")
    finally:
        other.kill()  # the adb client dies: the server closes the stream
        other.wait(WAIT)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if adb.run("-s", device.serial, "shell", "cat", f"{TMP}/hup").stdout == b"hup\n":
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the HUP trap never ran")
    assert adb.run("-s", device.serial, "shell", "pidof", "sleep").returncode == 1


def test_abb_and_cmd_without_a_service_answer_alike(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    via_abb = adb.run("-s", device.serial, "abb")
    via_cmd = adb.run("-s", device.serial, "shell", "cmd")
    expected = (
        b"cmd: No service specified; use -l to list all running services. "
        b"Use -w to start and wait for a service.\n"
    )
    assert via_cmd.stderr == expected
    assert via_abb.stdout + via_abb.stderr == expected
    assert via_abb.returncode == via_cmd.returncode == 20


def test_text_tools_in_a_device_script(adb: AdbOracle, device: SimulatedDevice) -> None:
    script = (
        f"mkdir -p {TMP}/t && cd {TMP}/t && printf 'a 1\\nb 2\\nc 3\\n' > x.txt && "
        "awk '$2 > 1 {print $1}' x.txt | tr a-z A-Z | sed 's/^/=/' && "
        "find . -name '*.txt' | xargs basename && cut -d' ' -f2 x.txt | xargs echo"
    )
    assert shell(adb, device, script) == "=B\n=C\nx.txt\n1 2 3\n"


def test_a_device_nc_listener_is_reachable_through_adb_forward(
    adb: AdbOracle, device: SimulatedDevice, tmp_path: Path
) -> None:
    """The device's nc serves a file through `adb forward`; the host reads it to the end.

    (Device → host: the listener's stdin is the file, so its end half-closes the socket after
    the last byte, as toybox nc does, and adbd flushes before closing the stream.)"""
    device_port, host_port = free_port(), free_port()
    payload = os.urandom(200_000)
    (tmp_path / "payload").write_bytes(payload)
    adb.ok("-s", device.serial, "push", str(tmp_path / "payload"), f"{TMP}/nc_payload")
    listener = subprocess.Popen(
        [str(ADB), "-s", device.serial, "shell", f"nc -l -p {device_port} < {TMP}/nc_payload"],
        env=adb.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_running(adb, device, "nc")
        _wait_for_listener(device_port)
        adb.ok("-s", device.serial, "forward", f"tcp:{host_port}", f"tcp:{device_port}")
        received = bytearray()
        with socket.create_connection(("127.0.0.1", host_port), timeout=WAIT) as client:
            while chunk := client.recv(65536):
                received += chunk
        assert hashlib.md5(received).hexdigest() == hashlib.md5(payload).hexdigest()
        assert listener.wait(WAIT) == 0
    finally:
        adb.run("-s", device.serial, "forward", "--remove-all")
        if listener.poll() is None:
            listener.kill()
            listener.wait(WAIT)


def _wait_for_listener(port: int) -> None:
    """The device's loopback is the host's: wait until /proc/net/tcp shows the LISTEN socket
    (connecting to find out would use up nc's one connection)."""
    wanted = f"0100007F:{port:04X}"
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
        if any(row.split()[1] == wanted and row.split()[3] == "0A" for row in rows):
            return
        time.sleep(0.02)
    raise AssertionError(f"nothing listens on port {port}")


def test_ctrl_c_through_a_tt_terminal_interrupts_the_command(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    terminal = subprocess.Popen(
        [str(ADB), "-s", device.serial, "shell", "-tt", "trap 'echo int' INT; sleep 30; echo $?"],
        env=adb.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_running(adb, device, "sleep")
        out, _ = terminal.communicate(b"\x03", timeout=WAIT)
        assert out == b"int\r\n130\r\n"
    finally:
        if terminal.poll() is None:
            terminal.kill()
            terminal.wait(WAIT)


def test_host_to_device_through_adb_forward_reaches_a_device_nc_listener(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    """The host sends through `adb forward`; the device's `nc -l | md5sum` sees every byte.
    adb's stdin is held open, so nc's stdin does not end while the data flows."""
    device_port, host_port = free_port(), free_port()
    listener = subprocess.Popen(
        [str(ADB), "-s", device.serial, "shell", f"nc -l -p {device_port} | md5sum"],
        env=adb.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_running(adb, device, "nc")
        _wait_for_listener(device_port)
        adb.ok("-s", device.serial, "forward", f"tcp:{host_port}", f"tcp:{device_port}")
        payload = os.urandom(200_000)
        with socket.create_connection(("127.0.0.1", host_port), timeout=WAIT) as client:
            client.sendall(payload)
        assert listener.stdout is not None and listener.stdin is not None
        watchdog = threading.Timer(WAIT, listener.kill)
        watchdog.start()
        try:
            out = listener.stdout.read()  # stdin stays open until the command has ended
        finally:
            watchdog.cancel()
        listener.stdin.close()
        assert out == f"{hashlib.md5(payload).hexdigest()}  -\n".encode()
        assert listener.wait(WAIT) == 0
    finally:
        adb.run("-s", device.serial, "forward", "--remove-all")
        if listener.poll() is None:
            listener.kill()
            listener.wait(WAIT)
