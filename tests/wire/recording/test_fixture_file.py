"""Fixture files: written and read back; damaged ones fail naming the file and the line."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from adbwire.errors import UsageError
from adbwire.wire.recording import (
    FORMAT_VERSION,
    FixtureHeader,
    FixtureWarning,
    FixtureWriter,
    ReplayTransport,
    load_fixture,
)
from adbwire.wire.recording.events import Call, Close, Data, End, Event, Open, Refused

HEADER = FixtureHeader(
    origin="simulated device",
    note="written by a test",
    adbwire_version="0.1.0",
    transport="tcp",
    recorded_at="2025-01-31T12:00:00Z",
    banner="device::ro.product.model=Pixel;features=shell_v2",
    features=("shell_v2",),
    device_version=0x01000001,
    device_max_payload=4096,
    version=0x01000001,
    max_payload=4096,
)
EVENTS: list[Event] = [
    Open(1, "shell,v2,raw:echo hi"),
    Data(1, "host", b"\x04\x00\x00\x00\x00"),
    Data(1, "device", b"\x01\x03\x00\x00\x00hi\n\x03\x01\x00\x00\x00\x00"),
    Close(1, "device"),
    Open(2, "nosuch:"),
    Refused(2),
    Open(3, "exec:cat /sdcard/photo.jpg"),
    Data(3, "device", bytes(range(256)) * 64),
    Close(3, "host"),
    Call("shell", {"command": "echo hi"}, {"exit_code": 0}),
    End("host", ""),
]


def write(path: Path, header: FixtureHeader = HEADER, events: list[Event] = EVENTS) -> Path:
    writer = FixtureWriter(path)
    writer.write_header(header)
    for event in events:
        writer.write_event(event)
    writer.close()
    return path


def test_what_is_written_reads_back_the_same(tmp_path: Path) -> None:
    fixture = load_fixture(write(tmp_path / "f.jsonl"))
    assert fixture.header == HEADER
    assert [item.event for item in fixture.events] == EVENTS
    assert [item.line for item in fixture.events] == list(range(2, 2 + len(EVENTS)))
    assert fixture.complete


def test_lines_are_readable_json(tmp_path: Path) -> None:
    lines = write(tmp_path / "f.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert first["adbwire_fixture"] == FORMAT_VERSION
    assert first["version"] == "0x01000001"
    assert json.loads(lines[3]) == {
        "event": "device",
        "stream": 1,
        "shell": [["stdout", "hi\n"], ["exit", 0]],
    }
    assert json.loads(lines[8])["zb64"]  # 16 KiB of compressible binary


def replace_line(path: Path, number: int, text: str) -> Path:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[number - 1] = text
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("number", "text", "problem"),
    [
        (3, '{"event": "host", "stream": 1, "text": "abc"\n', "not valid JSON"),
        (3, '{"event": "host", "stream": 1, "b64": "@@@", "size": 3}\n', "corrupted bytes"),
        (3, '{"event": "host", "stream": 1, "b64": "YWJj", "size": 4}\n', "size 4"),
        (9, '{"event": "device", "stream": 3, "zb64": "eJwrSS0u", "size": 9}\n', "truncated"),
        (3, '{"event": "host", "stream": 7, "text": "x"}\n', "stream 7 was never opened"),
        (6, '{"event": "open", "stream": 5, "service": "x"}\n', "expected stream 2"),
        (6, '{"event": "host", "stream": 1, "text": "x"}\n', "stream 1 was already closed"),
        (3, '{"event": "shout", "stream": 1}\n', "unknown event 'shout'"),
        (3, '{"event": "close", "stream": 1, "by": "nobody"}\n', '"by" must be'),
        (3, "[1, 2]\n", "expected a JSON object"),
    ],
)
def test_a_damaged_line_is_named(tmp_path: Path, number: int, text: str, problem: str) -> None:
    path = replace_line(write(tmp_path / "f.jsonl"), number, text)
    with pytest.raises(UsageError) as caught:
        load_fixture(path)
    assert str(caught.value).startswith(f"{path}:{number}: ")
    assert problem in str(caught.value)


def test_a_file_cut_mid_line_says_so(tmp_path: Path) -> None:
    path = write(tmp_path / "f.jsonl")
    raw = path.read_bytes()
    path.write_bytes(raw[: raw.index(b'"event": "refused"') + 5])
    with pytest.raises(UsageError, match=rf"{path}:7: the last line is cut off"):
        load_fixture(path)


def test_a_file_cut_between_lines_is_usable_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path / "f.jsonl")
    kept = path.read_text().splitlines(keepends=True)[:5]
    path.write_text("".join(kept))
    with pytest.warns(FixtureWarning, match=f"{path}: the recording has no end line"):
        fixture = load_fixture(path)
    assert not fixture.complete
    assert [item.event for item in fixture.events] == EVENTS[:4]


def test_a_newer_format_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "f.jsonl")
    first = json.loads(path.read_text().splitlines()[0])
    first["adbwire_fixture"] = FORMAT_VERSION + 1
    replace_line(path, 1, json.dumps(first) + "\n")
    with pytest.raises(UsageError) as caught:
        ReplayTransport(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:1: written in fixture format {FORMAT_VERSION + 1}")
    assert "upgrade adbwire" in message


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "empty file"),
        (b'{"hello": "world"}\n', "not an adbwire fixture"),
        (b'{"adbwire_fixture": "one"}\n', "bad format version"),
        (b'{"adbwire_fixture": 1}\n', 'bad header: missing "origin"'),
        (b"\x89PNG\r\n\x1a\n", "not valid JSON"),
    ],
)
def test_files_that_are_not_fixtures(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(UsageError, match=f"{path}:1: .*{problem}"):
        load_fixture(path)


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"cannot read the fixture .*nope\.jsonl"):
        load_fixture(tmp_path / "nope.jsonl")


def test_unknown_header_keys_are_ignored(tmp_path: Path) -> None:
    path = write(tmp_path / "f.jsonl")
    first = json.loads(path.read_text().splitlines()[0])
    first["added_in_a_later_minor_version"] = True
    replace_line(path, 1, json.dumps(first) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_fixture(path).header == HEADER
