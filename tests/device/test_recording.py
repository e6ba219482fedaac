"""Screen recording on the simulated device: one per device, stopped with SIGINT, the MP4
pulled and removed from the device; usage errors and early ends reported."""

from __future__ import annotations

import struct
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from adbwire.device import recording
from adbwire.device.errors import AlreadyExistsError, NotFoundError, VerificationError
from adbwire.errors import CommandFailedError, UsageError
from tests.device.ui_sim import simulated
from tests.mcp.harness import WAIT


def boxes(data: bytes) -> dict[bytes, bytes]:
    found, offset = {}, 0
    while offset + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[offset : offset + 8])
        found[kind] = data[offset + 8 : offset + size]
        offset += size
    return found


def test_arguments_are_checked_before_the_device() -> None:
    with pytest.raises(UsageError):
        recording.recording_argv("/x.mp4", 181)
    with pytest.raises(UsageError):
        recording.recording_argv("/x.mp4", 10, size="1080x")
    argv = recording.recording_argv("/x.mp4", 10, size="720x1280", bit_rate=4_000_000)
    assert argv == ["screenrecord", "--time-limit", "10", "--size", "720x1280",
                    "--bit-rate", "4000000", "/x.mp4"]  # fmt: skip


def test_record_stop_pull_and_clean_up(tmp_path: Path) -> None:
    with simulated("notes_list") as sim:
        recorder = recording.Recorder()
        running = recorder.start(sim.client, max_seconds=60)
        with pytest.raises(AlreadyExistsError, match="one per device"):
            recorder.start(sim.client)
        stopped = recorder.stop(sim.client, tmp_path / "clip.mp4", cap=1 << 20, progress=None)
        assert stopped.ended_by == "stop" and 0 <= stopped.duration_s < 60
        assert running.pid is not None  # found at start, or by stop's second pidof
        data = (tmp_path / "clip.mp4").read_bytes()
        assert stopped.bytes == len(data)
        top = boxes(data)
        assert top[b"ftyp"][:4] == b"mp42" and b"mdat" in top
        mvhd = boxes(top[b"moov"])[b"mvhd"]
        timescale, duration = struct.unpack(">II", mvhd[12:20])
        assert 0 < duration / timescale < 60
        assert [
            n for n, _ in sim.userland.device.files.listdir("/data/local/tmp") if n.endswith(".mp4")
        ] == []  # removed
        assert not [p for p in sim.userland.state.processes.values() if p.name == "screenrecord"]
        with pytest.raises(NotFoundError):
            recorder.stop(sim.client, tmp_path / "again.mp4", cap=1 << 20, progress=None)


def test_the_duration_ends_with_the_recording_not_with_the_pull(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skew = [0.0]
    clock = SimpleNamespace(monotonic=lambda: time.monotonic() + skew[0])
    monkeypatch.setattr("adbwire.device.recording.time", clock)  # this module's clock only

    def slow_pull(done: int, total: int | None) -> None:
        skew[0] = 1000.0  # the pull takes 1000 s of this clock

    with simulated("notes_list") as sim:
        recorder = recording.Recorder()
        recorder.start(sim.client, max_seconds=180)
        stopped = recorder.stop(sim.client, tmp_path / "clip.mp4", cap=1 << 20, progress=slow_pull)
    assert skew[0] == 1000.0
    assert stopped.duration_s < 60


def test_time_limit_end_and_abort(tmp_path: Path) -> None:
    with simulated("notes_list") as sim:
        recorder = recording.Recorder()
        running = recorder.start(sim.client, max_seconds=1)
        assert running.done.wait(10)
        stopped = recorder.stop(sim.client, tmp_path / "clip.mp4", cap=1 << 20, progress=None)
        assert stopped.ended_by == "time_limit"
        recorder.start(sim.client, max_seconds=60)
        assert recorder.abort(sim.client)
        assert recorder.running(sim.client.serial) is None
        assert [
            n for n, _ in sim.userland.device.files.listdir("/data/local/tmp") if n.endswith(".mp4")
        ] == []
        assert not recorder.abort(sim.client)


def test_a_recording_that_cannot_start_says_why(tmp_path: Path) -> None:
    with simulated("notes_list") as sim:

        def no_encoder(inv, command):  # type: ignore[no-untyped-def]
            inv.err("ERROR: unable to create video encoder\n")
            return 1

        sim.userland.hooks["screenrecord"] = no_encoder
        recorder = recording.Recorder()
        # pidof may list the process while it exits: then start succeeds and stop says why
        with pytest.raises(CommandFailedError, match="video encoder"):
            recorder.start(sim.client, max_seconds=5)
            recorder.stop(sim.client, tmp_path / "none.mp4", cap=1 << 20, progress=None)
        assert recorder.running(sim.client.serial) is None
        assert not (tmp_path / "none.mp4").exists()


def test_a_stream_that_opens_after_the_start_gave_up_is_stopped_and_removed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    removed = threading.Event()
    original_remove = recording._remove

    def remove(client: object, late: recording.Recording) -> None:
        original_remove(client, late)  # type: ignore[arg-type]
        removed.set()

    monkeypatch.setattr(recording, "START_SECONDS", 0.05)
    monkeypatch.setattr(recording, "_remove", remove)
    with simulated("notes_list") as sim:
        recorder = recording.Recorder()
        sim.device.faults.response_delay = 0.3  # the shell stream opens after the start gives up
        with pytest.raises(VerificationError, match="did not start"):
            recorder.start(sim.client, max_seconds=60)
        assert recorder.running(sim.client.serial) is None
        assert removed.wait(WAIT)  # the late stream: SIGINT, ended, its file removed
        sim.device.faults.response_delay = 0.0
        assert not [p for p in sim.userland.state.processes.values() if p.name == "screenrecord"]
        assert [
            n for n, _ in sim.userland.device.files.listdir("/data/local/tmp") if n.endswith(".mp4")
        ] == []
        names = [call[:2] for call in sim.userland.calls]
        assert ["screenrecord", "--time-limit"] in names and ["kill", "-2"] in names


def test_a_start_that_fails_once_the_stream_is_open_stops_it_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def gives_up_late(client: object, started: recording.Recording) -> None:
        assert started.opened.wait(WAIT)  # open, then the start fails all the same
        raise VerificationError("screenrecord did not start in time")

    monkeypatch.setattr(recording, "_confirm_started", gives_up_late)
    with simulated("notes_list") as sim:
        recorder = recording.Recorder()
        with pytest.raises(VerificationError):
            recorder.start(sim.client, max_seconds=60)
        assert recorder.running(sim.client.serial) is None
        names = [call[:2] for call in sim.userland.calls]
        assert ["kill", "-2"] in names and ["rm", "-f"] in names  # ended, then removed
        assert names.index(["kill", "-2"]) < names.index(["rm", "-f"])
        assert not [p for p in sim.userland.state.processes.values() if p.name == "screenrecord"]
        assert [
            n for n, _ in sim.userland.device.files.listdir("/data/local/tmp") if n.endswith(".mp4")
        ] == []
