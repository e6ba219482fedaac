"""USB captures (usbmon on Linux, USBPcap on Windows) import to the same events as the
session they hold, and replay. Built from the formats' specifications: no capture from
physical hardware is used (there is no USB bus here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adbwire.errors import UsageError
from adbwire.wire.pcap import import_capture
from adbwire.wire.recording.events import Event
from adbwire.wire.recording.host_driver import verify_fixture
from tests.wire.recording import pcap_builder as pb
from tests.wire.recording.test_pcap_import import session, stream_events  # noqa: F401


@pytest.mark.parametrize(
    ("link_type", "build"),
    [
        (220, lambda c: pb.usbmon_frames(c, mmapped=True)),
        (189, lambda c: pb.usbmon_frames(c, mmapped=False)),
        (249, pb.usbpcap_frames),
    ],
    ids=["usbmon-mmapped", "usbmon", "usbpcap"],
)
@pytest.mark.parametrize("container", ["pcap", "pcapng"])
def test_usb_captures_import_the_session_and_replay(
    session: tuple[list[tuple[bool, bytes]], list[Event]],  # noqa: F811
    tmp_path: Path,
    link_type: int,
    build: object,
    container: str,
) -> None:
    conversation, expected = session
    assert callable(build)
    frames = build(conversation)
    writer = pb.write_pcap if container == "pcap" else pb.write_pcapng
    capture = writer(tmp_path / f"c.{container}", link_type, frames)
    fixture = tmp_path / "f.jsonl"
    report = import_capture(capture, fixture)
    assert report.warnings == []
    assert stream_events(fixture) == expected
    assert json.loads(fixture.read_text().splitlines()[0])["transport"] == "usb"
    assert verify_fixture(fixture) == []


def test_a_usb_capture_without_an_adb_session_says_so(tmp_path: Path) -> None:
    frames = pb.usbmon_frames([])
    capture = pb.write_pcap(tmp_path / "c.pcap", 220, frames)
    with pytest.raises(UsageError, match="no ADB session on USB"):
        import_capture(capture, tmp_path / "f.jsonl")
