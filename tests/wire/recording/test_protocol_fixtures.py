"""Every fixture in protocol_fixtures/ replays through AdbClient, strictly, with the results
its `call` lines recorded; and the library covers every wire service we implement."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from adbwire.wire.pcap import import_capture
from adbwire.wire.recording import ORIGINS, ReplayTransport, connect_replay, load_fixture
from adbwire.wire.recording.events import Open
from adbwire.wire.recording.host_driver import verify_fixture
from adbwire.wire.recording.payload import is_shell_v2_service

LIBRARY = Path(__file__).resolve().parents[3] / "protocol_fixtures"
FIXTURES = sorted(LIBRARY.rglob("*.jsonl"))


def test_the_library_is_there() -> None:
    assert len(FIXTURES) >= 15


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(LIBRARY)))
def test_every_fixture_replays_cleanly(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unused stream, a missing end line: not clean
        fixture = load_fixture(path)
        assert verify_fixture(path) == []
    assert fixture.header.origin in ORIGINS
    assert fixture.header.note  # where it came from, in words


def services() -> list[str]:
    found: list[str] = []
    for path in FIXTURES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fixture = load_fixture(path)
        found += [item.event.service for item in fixture.events if isinstance(item.event, Open)]
    return found


@pytest.mark.parametrize(
    ("what", "test"),
    [
        ("shell v2", is_shell_v2_service),
        ("shell v1", lambda s: s.startswith("shell:")),
        ("exec", lambda s: s.startswith("exec:") and "package install" not in s),
        ("sync", lambda s: s == "sync:"),
        ("streamed install (cmd)", lambda s: "package install" in s),
        ("streamed install (abb_exec)", lambda s: s.startswith("abb_exec:package\0install\0")),
        ("pm install", lambda s: ":pm install " in s),
        ("forward", lambda s: s.startswith("tcp:")),
        ("reboot", lambda s: s.startswith("reboot:")),
        ("root", lambda s: s == "root:"),
    ],
)
def test_the_library_covers_each_service(what: str, test: object) -> None:
    assert callable(test)
    assert any(test(service) for service in services()), f"no fixture exercises {what}"


def test_the_library_covers_each_auth_path_and_protocol_version() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        headers = [load_fixture(path).header for path in FIXTURES]
    assert {h.auth.outcome for h in headers} >= {"none", "signature", "public_key", "incomplete"}
    assert {h.version for h in headers} >= {0x01000000, 0x01000001}
    assert {h.origin for h in headers} >= {"simulated device", "imported capture"}


CAPTURE = LIBRARY / "imported" / "adb-shell-exec.pcap"


def test_the_shipped_capture_imports_to_the_shipped_fixture(tmp_path: Path) -> None:
    shipped = load_fixture(CAPTURE.with_suffix(".jsonl"))
    again = tmp_path / "again.jsonl"
    import_capture(CAPTURE, again, port=None, note=shipped.header.note)
    assert load_fixture(again).events == shipped.events
    assert load_fixture(again).header.recorded_at == shipped.header.recorded_at


def test_our_services_speak_like_googles_adb_on_its_capture() -> None:
    """The capture of `adb shell ...` / `adb exec-out ...` replays through our own shell and
    exec functions: we send what adb sent, and read what the device answered."""
    client = connect_replay(CAPTURE.with_suffix(".jsonl"), strict=True)
    try:
        model = client.shell("getprop ro.product.model")
        failing = client.shell("echo oops >&2; exit 3")
        groceries = client.exec_out("cat /sdcard/Download/groceries.txt")
    finally:
        client.close()
    assert (model.stdout, model.exit_code) == (b"sdk_gphone64_x86_64\n", 0)
    assert (failing.stderr, failing.exit_code) == (b"oops\n", 3)
    assert groceries.startswith(b"milk\n")


def test_a_fixture_replays_with_a_different_key_and_payload_size() -> None:
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.connection import Connection  # noqa: PLC0415
    from adbwire.wire.recording import ReplayKey  # noqa: PLC0415
    from adbwire.wire.recording.calls import check_calls  # noqa: PLC0415

    path = LIBRARY / "simulated" / "sync-v2.jsonl"
    connection = Connection.open(
        ReplayTransport(path, strict=True), [ReplayKey()], max_payload=4096
    )
    client = AdbClient(connection)
    try:
        assert check_calls(client, load_fixture(path)) == []
    finally:
        client.close()
