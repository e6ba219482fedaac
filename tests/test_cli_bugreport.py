"""`adbwire bugreport` against a device whose bugreportz prints what it should not:
malformed progress, endless lines, a zip outside its directory, a failure."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from adbwire.cli import bugreport
from adbwire.testing import SimulatedDevice
from adbwire.testing.userland.shell.invocation import Invocation
from tests.conftest import CliRun


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "fraction",
    ["\u00b2/10", "3/\u00b9", "5/0", "-1/10", "1/-1", "abc", "1/2/3", "", "9" * 19 + "/1"],
)
def test_malformed_progress_draws_nothing_and_raises_nothing(fraction: str) -> None:
    terminal = Terminal()
    shown = bugreport.ShownProgress(terminal)
    shown.update(fraction)
    shown.finish()
    assert terminal.getvalue() == ""


def test_progress_is_drawn_in_place_and_capped_at_100() -> None:
    terminal = Terminal()
    shown = bugreport.ShownProgress(terminal)
    shown.name = "report\x1b[2J.zip"
    shown.update("3/4")
    shown.update("9/4")
    shown.finish()
    assert terminal.getvalue() == (
        "\r[ 75%] generating report\\x1b[2J.zip\r[100%] generating report\\x1b[2J.zip\n"
    )


@pytest.fixture
def fake_bugreportz(sim_device: SimulatedDevice) -> Iterator[Callable[[str], None]]:
    """Replace the device's bugreportz: `-v` answers as a real one, `-p` prints TEXT."""
    commands = sim_device.userland.device._commands  # type: ignore[attr-defined]
    saved = commands["bugreportz"]

    def install(text: str) -> None:
        def fake(inv: Invocation) -> int:
            if inv.args == ["-v"]:
                inv.err("1.2\n")
            else:
                inv.out(text)
            return 0

        commands["bugreportz"] = fake

    yield install
    commands["bugreportz"] = saved


def test_endless_progress_is_cut_off(
    run_cli: CliRun,
    sim_device: SimulatedDevice,
    fake_bugreportz: Callable[[str], None],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bugreport, "MAX_LINES", 50)
    fake_bugreportz("PROGRESS:1/2\n" * 60 + "OK:/bugreports/late.zip\n")
    status, out, err = run_cli("-s", sim_device.serial, "bugreport", str(tmp_path))
    assert (status, out) == (1, "")
    assert "bugreportz printed more than a report's lines" in err
    assert not os.listdir(tmp_path)


def test_a_line_without_end_is_cut_off(
    run_cli: CliRun,
    sim_device: SimulatedDevice,
    fake_bugreportz: Callable[[str], None],
    tmp_path: Path,
) -> None:
    fake_bugreportz("PROGRESS:" + "1" * (bugreport.MAX_LINE + 10))
    status, _, err = run_cli("-s", sim_device.serial, "bugreport", str(tmp_path))
    assert status == 1 and "bugreportz printed more than a report's lines" in err
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize(
    "named",
    [
        "/data/local/tmp/secret.zip",
        "/bugreports/../data/system/x.zip",
        "relative.zip",
        "/bugreports/",
        "/bugreports/x.txt",
    ],
)
def test_a_zip_outside_the_report_directory_is_not_pulled(
    run_cli: CliRun,
    sim_device: SimulatedDevice,
    fake_bugreportz: Callable[[str], None],
    tmp_path: Path,
    named: str,
) -> None:
    fake_bugreportz(f"PROGRESS:1/2\nOK:{named}\n")
    status, _, err = run_cli("-s", sim_device.serial, "bugreport", str(tmp_path))
    assert status == 1 and "bugreportz named a file outside its directory" in err
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("FAIL:dumpstate died\n", "Device failed to take a zipped bugreport: dumpstate died"),
        ("PROGRESS:1/2\n", "bugreportz did not return a 'OK:' or 'FAIL:' line"),
    ],
)
def test_a_failure_or_no_verdict_exits_1(
    run_cli: CliRun,
    sim_device: SimulatedDevice,
    fake_bugreportz: Callable[[str], None],
    tmp_path: Path,
    text: str,
    message: str,
) -> None:
    fake_bugreportz(text)
    status, _, err = run_cli("-s", sim_device.serial, "bugreport", str(tmp_path))
    assert status == 1 and message in err
    assert not os.listdir(tmp_path)


def test_help_shows_adbs_synopsis(
    run_cli: CliRun, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    with pytest.raises(SystemExit) as exited:
        run_cli("bugreport", "--help")
    assert exited.value.code == 0
    assert capsysbinary.readouterr().out.startswith(b"usage: adbwire bugreport [-h] [PATH]\n")
