"""A real capture: tcpdump on loopback while Google's adb talks to the simulated device; the
capture is imported as a fixture and replayed through our client.

Needs tcpdump and the right to capture (root, or passwordless sudo as on CI runners);
skipped with the reason otherwise. With ADBWIRE_UPDATE_CAPTURE=DIR set, the capture and
its fixture are also copied to DIR (how protocol_fixtures/imported/ is refreshed).
"""

from __future__ import annotations

import contextlib
import getpass
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.errors import UsageError
from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.wire.pcap import import_capture, read_frames, segment_of
from adbwire.wire.pcap.segments import FIN, RST
from adbwire.wire.recording import load_fixture
from adbwire.wire.recording.events import Data, Open
from adbwire.wire.recording.host_driver import verify_fixture
from tests.interop.adb_oracle import ADB, AdbOracle

TCPDUMP = shutil.which("tcpdump")
CAPTURE_NAME = "adb-shell-exec"
BUFFER_KIB = 64 * 1024

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
    pytest.mark.skipif(TCPDUMP is None, reason="tcpdump is not installed"),
]


def capture_command() -> list[str]:
    if os.geteuid() == 0:
        return [str(TCPDUMP)]
    probe = subprocess.run(["sudo", "-n", "true"], capture_output=True, timeout=10, check=False)
    if probe.returncode != 0:
        pytest.skip("capturing packets needs root or passwordless sudo")
    return ["sudo", "-n", str(TCPDUMP)]


class Tcpdump:
    """tcpdump on the loopback interface, filtered to one port, until stop()."""

    def __init__(self, output: Path, port: int) -> None:
        argv = [*capture_command(), "-i", "lo", "--immediate-mode", "-U", "-Z", getpass.getuser()]
        argv += ["-B", str(BUFFER_KIB)]  # a loaded machine must not make the kernel drop segments
        argv += ["-w", str(output), f"tcp port {port}"]
        self.process = subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        self.listening = threading.Event()
        self.log: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self.listening.wait(20):
            self.stop()
            pytest.skip(f"tcpdump did not start capturing: {' '.join(self.log)[:300]}")

    def _read(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            line = raw.decode(errors="replace").strip()
            self.log.append(line)
            if "listening on" in line:
                self.listening.set()

    def wait_for_end_of(self, output: Path, port: int, timeout: float = 20) -> bool:
        """Poll the capture file until it holds the TCP connection's FIN (or RST): tcpdump
        writes asynchronously and has no event to wait for."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(UsageError):
                for frame in read_frames(output):
                    segment = segment_of(frame)
                    ours = segment and port in (segment.source[1], segment.destination[1])
                    if segment and ours and segment.flags & (FIN | RST):
                        return True
            time.sleep(0.1)
        return False

    def dropped_by_kernel(self) -> int:
        """Segments the kernel could not hand to tcpdump (its summary line, after stop)."""
        for line in self.log:
            found = re.match(r"(\d+) packets? dropped by kernel", line)
            if found:
                return int(found.group(1))
        return 0

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self._reader.join(10)


@pytest.fixture
def device() -> Iterator[SimulatedDevice]:
    with running_device(DeviceOptions(accept_any_key=True)) as simulated:
        yield simulated


def test_a_capture_of_googles_adb_imports_and_replays_through_our_client(
    device: SimulatedDevice, tmp_path: Path
) -> None:
    capture = tmp_path / f"{CAPTURE_NAME}.pcap"
    tcpdump = Tcpdump(capture, device.port)
    adb = AdbOracle(tmp_path)
    try:
        adb.start()
        adb.attach(device.serial)
        model = adb.ok("-s", device.serial, "shell", "getprop", "ro.product.model")
        failing = adb.run("-s", device.serial, "shell", "echo oops >&2; exit 3")
        listing = adb.ok("-s", device.serial, "exec-out", "cat /sdcard/Download/groceries.txt")
    finally:
        adb.kill()  # ends the TCP connection, so the capture holds its end too
        tcpdump.wait_for_end_of(capture, device.port)
        tcpdump.stop()
    assert (failing.returncode, failing.stderr) == (3, b"oops\n")

    fixture = tmp_path / f"{CAPTURE_NAME}.jsonl"
    report = import_capture(
        capture,
        fixture,
        port=None,
        note=f"imported from {capture.name}: Google's adb talking to the simulated device",
    )
    assert report.port == device.port and report.warnings == []
    loaded = load_fixture(fixture)
    assert loaded.header.origin == "imported capture"
    services = [item.event.service for item in loaded.events if isinstance(item.event, Open)]
    assert any(s.endswith(":getprop ro.product.model") for s in services), services
    device_bytes = b"".join(
        item.event.data
        for item in loaded.events
        if isinstance(item.event, Data) and item.event.side == "device"
    )
    for expected in (model.strip(), b"oops\n", listing):
        assert expected in device_bytes

    assert verify_fixture(fixture) == []  # our connection and streams replay adb's session

    update = os.environ.get("ADBWIRE_UPDATE_CAPTURE")
    if update:
        Path(update).mkdir(parents=True, exist_ok=True)
        shutil.copy(capture, Path(update) / capture.name)
        shutil.copy(fixture, Path(update) / fixture.name)
