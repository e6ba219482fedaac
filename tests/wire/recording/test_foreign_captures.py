"""Captures of Google's adb (protocol_fixtures/imported/, made by
tests/interop/test_foreign_capture_interop.py) replay through adbwire's own services, which
ask for the same things in other words: no adb needed here."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from adbwire.cli import main as cli_main
from adbwire.errors import AdbwireError, StreamRefusedError, SyncFailError
from adbwire.wire.recording import FixtureWarning, connect_replay
from adbwire.wire.services.shell import EXIT_STATUS_UNKNOWN

IMPORTED = Path(__file__).resolve().parents[3] / "protocol_fixtures" / "imported"
V2 = IMPORTED / "adb-v2-term-sync.jsonl"
LEGACY = IMPORTED / "adb-legacy-shell.jsonl"
EXPORT = "/sdcard/Android/data/com.example.notes/files/export.json"
GROCERIES = "/sdcard/Download/groceries.txt"


def test_shells_pulls_listing_and_push_of_googles_adb_replay_strictly_in_another_order() -> None:
    with connect_replay(V2, strict=True) as client:
        failing = client.shell("echo oops >&2; exit 3")  # recorded without TERM
        assert (failing.exit_code, failing.stderr) == (3, b"oops\n")
        model = client.shell("getprop ro.product.model")  # recorded with TERM=xterm-256color
        assert (model.stdout, model.exit_code) == (b"sdk_gphone64_x86_64\n", 0)
        pushed = client.push_stream(
            io.BytesIO(b"pushed by Google's adb\n"), "/data/local/tmp/pushed.txt", mode=0o644
        )
        assert pushed == 23
        sink = io.BytesIO()
        client.pull_stream(EXPORT, sink)  # adbwire: RCV2; adb: STA2 then RECV, another stream
        assert sink.getvalue().startswith(b'{"notes": ')
        assert client.stat(GROCERIES).size == 29
        sink = io.BytesIO()
        client.pull_stream(GROCERIES, sink)
        assert sink.getvalue() == b"milk\neggs\ncoffee beans\nbasil\n"
        names = {entry.name for entry in client.list_dir("/sdcard/Download")}
        assert "groceries.txt" in names
        assert client.stat(EXPORT).size == 97
        with pytest.raises(SyncFailError):  # answered as recorded: adb's stat before its push
            client.stat("/data/local/tmp/pushed.txt")


def test_a_legacy_shell_replays_with_its_output_and_an_unknown_exit_status() -> None:
    with connect_replay(LEGACY, strict=True) as client:
        assert "shell_v2" not in client.connection.features
        listing = client.shell("ls /sdcard/Download")
        assert (listing.stdout, listing.exit_code) == (b"groceries.txt\n", EXIT_STATUS_UNKNOWN)
        failing = client.shell("echo oops >&2; exit 3")  # merged output, as on such a device
        assert (failing.stdout, failing.exit_code) == (b"oops\n", EXIT_STATUS_UNKNOWN)
        client.shell("getprop ro.product.model")


def test_a_pull_the_capture_lacks_fails_that_stream_and_the_rest_goes_on() -> None:
    with connect_replay(V2) as client:
        with (
            pytest.warns(FixtureWarning, match="RCV2 '/sdcard/other.txt'"),
            pytest.raises(AdbwireError, match="sync"),
        ):
            client.pull_stream("/sdcard/other.txt", io.BytesIO())
        with pytest.warns(FixtureWarning), pytest.raises(StreamRefusedError, match="uptime"):
            client.shell("uptime")
        assert client.shell("getprop ro.product.model").exit_code == 0
        with pytest.warns(FixtureWarning):
            client.close()


def test_the_command_line_replays_a_foreign_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(The unused rest of each capture is a warning, which the command line logs.)"""
    replay = ["--replay", str(V2)]
    assert cli_main.main([*replay, "shell", "-n", "getprop", "ro.product.model"]) == 0
    assert capsys.readouterr().out == "sdk_gphone64_x86_64\n"
    assert cli_main.main([*replay, "pull", GROCERIES, str(tmp_path / "g.txt")]) == 0
    assert (tmp_path / "g.txt").read_bytes() == b"milk\neggs\ncoffee beans\nbasil\n"
    legacy = ["--replay", str(LEGACY), "shell", "-n", "ls", "/sdcard/Download"]
    assert cli_main.main(legacy) == 0  # no exit status in the capture: 0, as adb says
    assert capsys.readouterr().out.endswith("groceries.txt\n")
