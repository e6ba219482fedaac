"""Foreign captures: tcpdump on loopback while Google's adb talks to the simulated device the
way a user would (shells with TERM set and unset, a device without shell_v2, several pulls,
a listing and a push in one connection). Each capture is imported, compared with the fixture
checked in under protocol_fixtures/imported/ (the replay tests use those, without adb), and
replayed through adbwire's own services, which ask for the same things in other words.

Needs tcpdump and the right to capture (see test_capture_import_interop.py). With
ADBWIRE_UPDATE_CAPTURE=DIR set, the fixtures are written to DIR (how they are refreshed).
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.testing import DEVICE_FEATURES, DeviceOptions, SimulatedDevice, running_device
from adbwire.wire.pcap import import_capture
from adbwire.wire.recording import connect_replay, load_fixture
from adbwire.wire.recording.events import Data, Open
from adbwire.wire.recording.host_bytes import HostCanon, canon_for
from tests.interop.adb_oracle import AdbOracle
from tests.interop.test_capture_import_interop import TCPDUMP, Tcpdump, pytestmark  # noqa: F401

FIXTURES = Path(__file__).resolve().parents[2] / "protocol_fixtures" / "imported"
TERM = "xterm-256color"
PUSHED = b"pushed by Google's adb\n"
ATTEMPTS = 3


def _with_term(adb: AdbOracle, term: str | None) -> None:
    env = {key: value for key, value in adb.env.items() if key != "TERM"}
    if term is not None:
        env["TERM"] = term
    adb.env = env


def _capture(device: SimulatedDevice, tmp_path: Path, name: str, session: object) -> Path:
    """Run `session` under tcpdump and import the capture. A capture the kernel dropped
    segments from (tcpdump says so) is the machine's fault, not the importer's: retried."""
    for attempt in range(1, ATTEMPTS + 1):
        run_dir = tmp_path / f"{name}-{attempt}"
        run_dir.mkdir()
        capture = run_dir / f"{name}.pcap"
        tcpdump = Tcpdump(capture, device.port)
        adb = AdbOracle(run_dir)
        try:
            adb.start()
            adb.attach(device.serial)
            assert callable(session)
            session(adb, device.serial)
        finally:
            adb.kill()
            tcpdump.wait_for_end_of(capture, device.port)
            tcpdump.stop()
        fixture = tmp_path / f"{name}.jsonl"
        report = import_capture(capture, fixture, port=None, note=_NOTES[name])
        if report.warnings and tcpdump.dropped_by_kernel() and attempt < ATTEMPTS:
            continue
        assert report.warnings == [], f"tcpdump said: {tcpdump.log}"
        return fixture
    raise AssertionError("unreachable")


_NOTES = {
    "adb-v2-term-sync": (
        "origin: Google's adb (Debian 29.0.6) talking to the simulated device, captured with "
        "tcpdump on loopback by tests/interop/test_foreign_capture_interop.py: shell with "
        "TERM=xterm-256color, shell without TERM, two pulls, a listing, a push"
    ),
    "adb-legacy-shell": (
        "origin: Google's adb (Debian 29.0.6) talking to the simulated device without "
        "shell_v2 (legacy shell: streams), captured with tcpdump on loopback by "
        "tests/interop/test_foreign_capture_interop.py"
    ),
}


def _v2_session(tmp_path: Path) -> object:
    def run(adb: AdbOracle, serial: str) -> None:
        _with_term(adb, TERM)
        assert adb.ok("-s", serial, "shell", "getprop", "ro.product.model").strip()
        _with_term(adb, None)
        failing = adb.run("-s", serial, "shell", "echo oops >&2; exit 3")
        assert (failing.returncode, failing.stderr) == (3, b"oops\n")
        adb.ok("-s", serial, "pull", "/sdcard/Download/groceries.txt", str(tmp_path / "g.txt"))
        export = "/sdcard/Android/data/com.example.notes/files/export.json"
        adb.ok("-s", serial, "pull", export, str(tmp_path / "e.json"))
        adb.ok("-s", serial, "ls", "/sdcard/Download")
        local = tmp_path / "push.txt"
        local.write_bytes(PUSHED)
        adb.ok("-s", serial, "push", str(local), "/data/local/tmp/pushed.txt")

    return run


def _legacy_session(adb: AdbOracle, serial: str) -> None:
    _with_term(adb, TERM)
    assert adb.ok("-s", serial, "shell", "getprop", "ro.product.model").strip()
    _with_term(adb, None)
    assert b"oops" in adb.run("-s", serial, "shell", "echo oops >&2; exit 3").stdout
    assert b"groceries.txt" in adb.ok("-s", serial, "shell", "ls", "/sdcard/Download")


def _meaning(path: Path) -> list[tuple[str, bytes, bytes]]:
    """Per stream: service, host bytes (canonical: sync DONE without its mtime; none on
    shells), device bytes (their size on sync). What differs between two captures of the same
    session is left out."""
    fixture = load_fixture(path)
    services: dict[int, str] = {}
    canons: dict[int, HostCanon] = {}
    hosts: dict[int, bytes] = {}
    devices: dict[int, bytes] = {}
    for item in fixture.events:
        event = item.event
        if isinstance(event, Open):
            services[event.stream] = event.service
            canons[event.stream] = canon_for(event.service)
            hosts[event.stream] = devices[event.stream] = b""
        elif isinstance(event, Data) and event.side == "host":
            hosts[event.stream] += canons[event.stream].feed(event.data)
        elif isinstance(event, Data):
            devices[event.stream] += event.data
    meaning: list[tuple[str, bytes, bytes]] = []
    for number, service in services.items():
        # Whether adb's close-stdin reaches a shell before it ends is a race; stat records
        # hold the inodes and times of the run.
        host = b"" if service.startswith("shell") else hosts[number]
        device = str(len(devices[number])).encode() if service == "sync:" else devices[number]
        meaning.append((service, host, device))
    return meaning


def _check_in_or_compare(fixture: Path) -> None:
    update = os.environ.get("ADBWIRE_UPDATE_CAPTURE")
    if update:
        Path(update).mkdir(parents=True, exist_ok=True)
        shutil.copy(fixture, Path(update) / fixture.name)
        return
    assert _meaning(fixture) == _meaning(FIXTURES / fixture.name), (
        f"Google's adb now captures another session than {FIXTURES / fixture.name}: "
        "refresh it with ADBWIRE_UPDATE_CAPTURE=protocol_fixtures/imported"
    )


@pytest.fixture
def device() -> Iterator[SimulatedDevice]:
    with running_device(DeviceOptions(accept_any_key=True)) as simulated:
        yield simulated


@pytest.fixture
def legacy_device() -> Iterator[SimulatedDevice]:
    features = tuple(item for item in DEVICE_FEATURES if item != "shell_v2")
    with running_device(DeviceOptions(accept_any_key=True, features=features)) as simulated:
        yield simulated


def test_googles_shells_pulls_and_push_replay_through_adbwire(
    device: SimulatedDevice, tmp_path: Path
) -> None:
    fixture = _capture(device, tmp_path, "adb-v2-term-sync", _v2_session(tmp_path))
    services = [i.event.service for i in load_fixture(fixture).events if isinstance(i.event, Open)]
    assert f"shell,v2,TERM={TERM},raw:getprop ro.product.model" in services
    assert services.count("sync:") >= 3
    _check_in_or_compare(fixture)
    with connect_replay(fixture) as client:
        assert client.shell("echo oops >&2; exit 3").exit_code == 3
        assert client.shell("getprop ro.product.model").exit_code == 0
        export = "/sdcard/Android/data/com.example.notes/files/export.json"
        for path in (export, "/sdcard/Download/groceries.txt"):
            sink = io.BytesIO()
            assert client.pull_stream(path, sink) > 0


def test_googles_legacy_shells_replay_through_adbwire(
    legacy_device: SimulatedDevice, tmp_path: Path
) -> None:
    fixture = _capture(legacy_device, tmp_path, "adb-legacy-shell", _legacy_session)
    services = [i.event.service for i in load_fixture(fixture).events if isinstance(i.event, Open)]
    assert "shell:getprop ro.product.model" in services
    _check_in_or_compare(fixture)
    with connect_replay(fixture) as client:
        assert client.shell("ls /sdcard/Download").stdout.startswith(b"")
