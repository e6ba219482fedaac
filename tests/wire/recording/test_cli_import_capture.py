"""`adbwire import-capture`: the command line around the capture import."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.cli import import_capture as command
from adbwire.cli import main as cli_main
from adbwire.wire.recording import load_fixture

CAPTURE = (
    Path(__file__).resolve().parents[3] / "protocol_fixtures" / "imported" / "adb-shell-exec.pcap"
)


@pytest.fixture
def adbwire(monkeypatch: pytest.MonkeyPatch) -> object:
    """`adbwire.cli.main.main` with the import-capture command registered."""
    if command not in cli_main.COMMANDS:
        monkeypatch.setattr(cli_main, "COMMANDS", (*cli_main.COMMANDS, command))
    return cli_main.main


def test_import_with_the_port_found_automatically(
    adbwire: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out.jsonl"
    code = cli_main.main(["import-capture", str(CAPTURE), "--port", "auto", "-o", str(output)])
    assert code == 0
    assert capsys.readouterr().out.startswith(f"wrote {output}: 3 streams, ")
    fixture = load_fixture(output)
    assert fixture.header.origin == "imported capture"
    assert fixture.header.note == f"imported from {CAPTURE.name}"


def test_a_wrong_port_says_where_adb_is(
    adbwire: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out.jsonl"
    code = cli_main.main(["import-capture", str(CAPTURE), "-o", str(output), "--note", "x"])
    assert code == 2
    error = capsys.readouterr().err
    assert "no TCP connection with data on port 5555; ADB is on port" in error
    assert "--port auto" in error
    assert not output.exists()


def test_bad_arguments(adbwire: object, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        cli_main.main(["import-capture", str(CAPTURE), "--port", "seventy", "-o", "x"])
    assert caught.value.code == 2
    assert "'seventy' is not a TCP port" in capsys.readouterr().err
