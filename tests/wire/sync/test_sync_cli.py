"""`adbwire push`, `pull` and `ls` through the real entry point, against the simulator."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import stat
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest

from adbwire.cli import main as cli_main
from adbwire.cli import progress as progress_module
from adbwire.cli import pull as pull_command
from adbwire.cli.progress import ProgressLine, render
from adbwire.wire.keys import AdbKey, default_key_path
from tests.wire.sync.conftest import SyncDevice

Run = Callable[..., tuple[int, str, str]]
SUMMARY = re.compile(
    r"^(?P<name>.+): (?P<files>\d+) files? (?P<verb>pushed|pulled), (?P<skipped>\d+) skipped\."
    r" [\d.]+ MB/s \((?P<bytes>\d+) bytes in [\d.]+s\)$"
)


@pytest.fixture
def cli(
    v2_device: SyncDevice,
    adb_key: AdbKey,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Run:
    """Run `adbwire -s DEVICE ARGS...` with our commands registered; (status, out, err)."""
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())  # the CLI loads ~/.android/adbkey
    assert {"push", "pull", "ls"} <= {getattr(entry, "word", None) for entry in cli_main.COMMANDS}

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        status = cli_main.main(["-s", v2_device.device.serial, "--timeout", "10", *args])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def test_push_prints_adbs_summary_line(cli: Run, v2_device: SyncDevice, tmp_path: Path) -> None:
    (tmp_path / "a.bin").write_bytes(b"x" * 5000)
    status, out, err = cli("push", str(tmp_path / "a.bin"), "/data/local/tmp/")
    assert (status, err) == (0, "")
    match = SUMMARY.match(out.strip())
    assert match, out
    assert match["name"] == str(tmp_path / "a.bin")
    assert (match["files"], match["verb"], match["bytes"]) == ("1", "pushed", "5000")
    assert v2_device.files.read_bytes("/data/local/tmp/a.bin") == b"x" * 5000


def test_several_sources_get_a_line_each_and_a_total(cli: Run, tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).write_bytes(name.encode() * 10)
    status, out, _ = cli("push", str(tmp_path / "a"), str(tmp_path / "b"), "/data/local/tmp")
    lines = out.strip().splitlines()
    assert status == 0 and len(lines) == 3
    assert lines[-1].startswith("2 files pushed, 0 skipped.")


def test_a_failed_file_is_printed_and_exits_1(cli: Run, tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"1")
    status, out, err = cli("push", str(tmp_path / "f"), "/system/f")
    assert status == 1
    assert "failed to push" in err and "/system/f" in err and "Read-only file system" in err
    assert "0 files pushed" in out


def test_mistakes_before_anything_moves_exit_2(cli: Run, tmp_path: Path) -> None:
    status, _, err = cli("push", str(tmp_path / "missing"), "/data/local/tmp")
    assert status == 2
    assert "cannot stat" in err and "missing" in err
    assert cli("push", "/data/local/tmp")[0] == 2
    assert cli("pull", "-z", "gzip", "/sdcard/x")[0] == 2


def test_pull_defaults_to_the_current_directory(
    cli: Run, v2_device: SyncDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    v2_device.files.write_bytes("/sdcard/d/x.txt", b"x")
    v2_device.files.write_bytes("/sdcard/d/y/z.txt", b"zz")
    monkeypatch.chdir(tmp_path)
    status, out, _ = cli("pull", "/sdcard/d")
    assert status == 0
    assert (tmp_path / "d" / "y" / "z.txt").read_bytes() == b"zz"
    match = SUMMARY.match(out.strip())
    assert match and (match["files"], match["verb"]) == ("2", "pulled")
    status, out, _ = cli("pull", "-q", "/sdcard/d/x.txt", "copy.txt")
    assert (status, out) == (0, "")
    assert (tmp_path / "copy.txt").read_bytes() == b"x"


def test_ls_prints_adbs_hex_columns_and_json(cli: Run, v2_device: SyncDevice) -> None:
    v2_device.files.write_bytes("/data/local/tmp/ls/file.txt", b"12345", mode=0o100644)
    status, out, _ = cli("ls", "/data/local/tmp/ls")
    assert status == 0
    lines = dict(line.rsplit(" ", 1)[::-1] for line in out.splitlines())
    assert set(lines) == {".", "..", "file.txt"}
    mode, size, mtime = lines["file.txt"].split()
    assert (mode, size) == ("000081a4", "00000005")
    assert re.fullmatch(r"[0-9a-f]{8}", mtime)
    status, out, _ = cli("ls", "--json", "/data/local/tmp/ls")
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["file.txt"]["size"] == 5
    assert rows["file.txt"]["type"] == "file"
    assert rows["file.txt"]["permissions"] == "0644"
    assert rows["."]["type"] == "directory"


def test_ls_of_a_missing_path_is_an_error(cli: Run) -> None:
    status, out, err = cli("ls", "/data/local/tmp/nowhere")
    assert out == ""
    assert status == 1
    assert "/data/local/tmp/nowhere: No such file or directory" in err


def test_progress_line_draws_only_when_asked_and_erases_itself() -> None:
    quiet = StringIO()
    ProgressLine("x", quiet)(10, 100)  # a StringIO is not a terminal
    assert quiet.getvalue() == ""
    shown = StringIO()
    line = ProgressLine("push to /sdcard", shown, enabled=True)
    line(50, 100)
    line(100, 100)
    line.finish()
    text = shown.getvalue()
    assert "[ 50%] push to /sdcard" in text and "[100%]" in text
    assert text.endswith("\r")


def test_render_handles_an_unknown_total() -> None:
    assert render("f", 3 * 1024 * 1024, None, 1.0) == "[   ?] f: 3.0 MiB, 3.0 MB/s"
    assert render("f", 0, 0, 0.0) == "[   ?] f: 0.0 MiB"


def test_pull_a_strips_setuid_setgid_and_sticky(
    cli: Run, v2_device: SyncDevice, tmp_path: Path
) -> None:
    v2_device.files.write_bytes("/sdcard/su", b"#!")
    v2_device.files.host_path("/sdcard/su").chmod(0o7755)
    status, _, err = cli("pull", "-a", "/sdcard/su", str(tmp_path / "su"))
    assert (status, err) == (0, "")
    assert stat.S_IMODE((tmp_path / "su").stat().st_mode) == 0o755 & ~_process_umask()


def _process_umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def test_pull_stops_a_tree_past_max_entries(
    cli: Run, v2_device: SyncDevice, tmp_path: Path
) -> None:
    for index in range(5):
        v2_device.files.write_bytes(f"/sdcard/many/{index}.txt", b"x")
    status, _, err = cli("pull", "--max-entries", "3", "/sdcard/many", str(tmp_path))
    assert status == 1
    assert "failed to pull '/sdcard/many'" in err
    assert "'/sdcard/many' has more than 3 entries (max_entries" in err
    status, _, err = cli("pull", "--max-depth", "1", "/sdcard/many", str(tmp_path / "again"))
    assert (status, err) == (0, "")


def test_pull_min_rate_ends_a_trickling_device(
    cli: Run, v2_device: SyncDevice, tmp_path: Path
) -> None:
    v2_device.files.write_bytes("/sdcard/slow.bin", b"s" * 4000)
    v2_device.device.faults.trickle("sync:", interval=0.005)
    status, _, err = cli(
        "pull", "--min-rate", "2K", "--rate-grace", "0.5", "/sdcard/slow.bin", str(tmp_path)
    )
    assert status == 1
    assert "slower than the minimum rate of 2048 bytes/s" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_local_name_too_long_exits_2_with_a_clear_message(
    cli: Run, v2_device: SyncDevice, tmp_path: Path
) -> None:
    v2_device.files.write_bytes("/sdcard/f", b"1")
    status, _, err = cli("pull", "/sdcard/f", str(tmp_path / ("x" * 300)))
    assert status == 2
    assert err.startswith("adbwire: error: failed to access '") and "File name too long" in err


@pytest.mark.parametrize(
    ("text", "rate"),
    [("65536", 65536), ("64K", 65536), ("64KiB/s", 65536), ("1.5M", 1.5 * 2**20), ("2g", 2**31)],
)
def test_min_rate_takes_binary_units(text: str, rate: float) -> None:
    assert pull_command.rate_argument(text) == rate


@pytest.mark.parametrize("text", ["0", "-1", "fast", "1T", "", "0.0K"])
def test_min_rate_refuses_what_is_not_a_rate(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="not a rate in bytes/s"):
        pull_command.rate_argument(text)


@pytest.mark.parametrize("text", ["0", "-3", "1.5", "many"])
def test_limits_must_be_positive_whole_numbers(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="not a positive whole number"):
        pull_command.positive_int(text)
    assert pull_command.positive_int("7") == 7


@pytest.mark.parametrize("text", ["0", "-1", "inf", "nan", "soon"])
def test_rate_grace_must_be_a_positive_number(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="not a positive number"):
        pull_command.positive_float(text)
    assert pull_command.positive_float("0.25") == 0.25


def test_the_pull_progress_line_counts_the_entries_walked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress_module, "REDRAW_INTERVAL", 0.0)
    shown = StringIO()
    progress = pull_command.PullProgress("out", ProgressLine("pull to out", shown, enabled=True))
    progress(1024 * 1024, None)
    progress.entries(1500)
    assert "[   ?] pull to out (1500 entries listed): 1.0 MiB" in shown.getvalue()


def test_compression_flags_and_adb_compression(
    cli: Run, v2_device: SyncDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"".join(b"line %d of a log\n" % n for n in range(20_000))
    (tmp_path / "log").write_bytes(data)
    assert cli("push", "-z", "lz4", str(tmp_path / "log"), "/data/local/tmp/log")[0] == 0
    assert cli("pull", "-z", "zstd", "/data/local/tmp/log", str(tmp_path / "back"))[0] == 0
    assert (tmp_path / "back").read_bytes() == data
    monkeypatch.setenv("ADB_COMPRESSION", "brotli")
    assert cli("pull", "/data/local/tmp/log", str(tmp_path / "again"))[0] == 0
    assert (tmp_path / "again").read_bytes() == data
    monkeypatch.setenv("ADB_COMPRESSION", "2")
    status, _, err = cli("push", str(tmp_path / "log"), "/data/local/tmp/log")
    assert status == 2 and "unknown compression '2'" in err
    status, _, _ = cli("push", "-Z", str(tmp_path / "log"), "/data/local/tmp/log")
    assert status == 0  # -Z wins over the environment
