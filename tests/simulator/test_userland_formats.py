"""The userland's output formats, checked against output captured from real devices.

The samples are in tests/data/device_outputs (SOURCES.md there gives each file's origin).
"""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from adbwire.testing.userland.android import png as pngmod
from adbwire.testing.userland.android.logs import LogStore, format_entry
from adbwire.testing.userland.android.ui import escape_attribute, parse_hierarchy, serialize
from tests.device_outputs import DEVICE_OUTPUTS as SAMPLES
from tests.simulator.userland_harness import make_userland, run

DUMPS = sorted((SAMPLES / "uiautomator_dump").glob("*.xml"))


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path)


def _attribute_names(xml: str) -> list[tuple[str, ...]]:
    return [
        tuple(name for name in re.findall(r' ([\w-]+)="', tag) if name != "NAF")
        for tag in re.findall(r"<node [^>]*>", xml)
    ]


@pytest.mark.parametrize("sample", DUMPS, ids=lambda p: p.name)
def test_real_dumps_survive_parse_and_serialise_byte_for_byte(sample: Path) -> None:
    raw = sample.read_bytes()
    assert serialize(parse_hierarchy(raw.decode())).encode() == raw


def test_attribute_escaping_follows_androids_xml_serializer() -> None:
    text = 'a\tb\nc "q" <&> it\'s \U0001f979 \u7075'
    assert escape_attribute(text) == (
        "a&#9;b&#10;c &quot;q&quot; &lt;&amp;&gt; it's &#129401; \u7075"
    )


@pytest.mark.parametrize("screen", ["launcher", "notes_list", "note_editor", "settings", "vault"])
def test_our_dumps_have_the_shape_of_a_real_emulator_dump(userland: Userland, screen: str) -> None:
    real = (SAMPLES / "uiautomator_dump" / "system_anr_dialog_quietlog.xml").read_text()
    ours = userland.device.scenario.screens[screen].hierarchy
    prefix = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    assert real.startswith(prefix) and ours.startswith(prefix)
    assert ours.endswith("</hierarchy>") and "\n" not in ours
    assert set(_attribute_names(ours)) == set(_attribute_names(real))


def test_screencap_png_has_the_chunk_layout_of_androids(userland: Userland) -> None:
    def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
        found, pos = [], 8
        while pos < len(data):
            (length,) = struct.unpack(">I", data[pos : pos + 4])
            kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
            (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
            assert crc == zlib.crc32(kind + body)
            found.append((kind, body))
            pos += 12 + length
        return found

    real = chunks((SAMPLES / "screencap_png" / "emulator_1080x2424_quietlog.png").read_bytes())
    ours = chunks(run(userland, "screencap -p").raw)

    def squeeze(kinds: list[bytes]) -> list[bytes]:
        return [k for i, k in enumerate(kinds) if k != b"IDAT" or kinds[i - 1] != k]

    assert squeeze([k for k, _ in ours]) == squeeze([k for k, _ in real])
    assert (
        ours[0][1][8:] == real[0][1][8:]
    )  # bit depth, colour type, compression, filter, interlace
    assert dict(ours)[b"sBIT"] == dict(real)[b"sBIT"]
    assert dict(ours)[b"sRGB"] == dict(real)[b"sRGB"]
    assert all(len(body) <= 8192 for kind, body in ours if kind == b"IDAT")


def test_png_reader_decodes_a_real_screencap() -> None:
    image = pytest.importorskip("PIL.Image")
    path = SAMPLES / "screencap_png" / "emulator_1080x2424_quietlog.png"
    width, height, pixels = pngmod.decode_png(path.read_bytes())
    with image.open(path) as reference:
        assert (width, height) == reference.size
        assert pixels == reference.convert("RGBA").tobytes()


def test_png_writer_output_decodes_to_the_canvas() -> None:
    canvas = pngmod.Canvas(64, 48, (10, 20, 30, 255), [pngmod.Rect(5, 6, 40, 30, (200, 1, 2, 255))])
    width, height, pixels = pngmod.decode_png(canvas.png())
    assert (width, height) == (64, 48)
    assert pixels == canvas.rgba()
    assert pixels[(10 * 64 + 10) * 4 : (10 * 64 + 10) * 4 + 4] == bytes((200, 1, 2, 255))


def test_raw_frame_header_follows_screencap_cpp() -> None:
    assert pngmod.raw_frame(2, 1, b"\x01" * 8, sdk=34)[:16] == struct.pack("<IIII", 2, 1, 1, 1)
    assert pngmod.raw_frame(2, 1, b"\x01" * 8, sdk=26)[:12] == struct.pack("<III", 2, 1, 1)
    assert len(pngmod.raw_frame(2, 1, b"\x01" * 8, sdk=26)) == 12 + 8


def test_getprop_lines_have_the_real_layout(userland: Userland) -> None:
    pattern = re.compile(r"\[[^\]]+\]: \[[^\n]*\]")
    real = (SAMPLES / "getprop" / "oneplus_be2028_android11_sdk30.txt").read_text()
    real_lines = [line for line in real.splitlines() if line.startswith("[")]
    assert sum(bool(pattern.fullmatch(line)) for line in real_lines) > 0.99 * len(real_lines)
    ours = run(userland, "getprop").out.splitlines()
    assert ours and all(pattern.fullmatch(line) for line in ours)


def test_threadtime_round_trips_a_real_logcat() -> None:
    real = (SAMPLES / "logcat" / "threadtime_microg_device_excerpt.txt").read_text()
    store = LogStore(2024)
    store.load("main", real)
    ours = "".join(format_entry(entry) for entry in store.entries(["main"]))
    body = real.split("\n", 1)[1]
    assert ours == body


def test_crash_lines_are_threadtime(userland: Userland) -> None:
    real = (SAMPLES / "logcat" / "threadtime_microg_device_excerpt.txt").read_text()
    pattern = re.compile(r"\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [ \d]{5} [ \d]{5} [VDIWEF] .{8,}?: .*")
    assert all(pattern.fullmatch(line) for line in real.splitlines()[1:200])
    run(userland, "am start -n com.example.notes/.StatsActivity")
    crash = run(userland, "logcat -d -b crash").out.splitlines()
    assert len(crash) > 10 and all(pattern.fullmatch(line) for line in crash)


def test_dumpsys_battery_has_the_real_lines_in_the_real_order(userland: Userland) -> None:
    def labels(text: str) -> list[str]:
        return [line.split(":")[0] for line in text.splitlines()]

    real = (SAMPLES / "dumpsys_battery" / "emulator_recent_format.txt").read_text()
    assert labels(run(userland, "dumpsys battery").out) == labels(real)


def test_focus_lines_have_the_real_format(userland: Userland) -> None:
    real = (SAMPLES / "dumpsys_window" / "pixel_like_1080x2340_displays.txt").read_text()
    current = re.compile(r"  mCurrentFocus=Window\{[0-9a-f]{7} u0 [\w.]+/[\w.]+\}")
    focused = re.compile(r"  mFocusedApp=ActivityRecord\{[0-9a-f]{7} u0 [\w.]+/[\w.]+ t\d+\}")
    for text in (real, run(userland, "dumpsys window displays").out):
        lines = text.splitlines()
        assert any(current.fullmatch(line) for line in lines)
        assert any(focused.fullmatch(line) for line in lines)
    assert run(userland, "dumpsys window displays").out.startswith(real.splitlines()[0])


def test_error_messages_equal_real_ones(userland: Userland) -> None:
    unknown_package = (SAMPLES / "dumpsys_package" / "error_unable_to_find_package.txt").read_text()
    assert run(userland, "dumpsys package com.funnyenglish.app").out == unknown_package
    no_activity = (
        SAMPLES / "dumpsys_activity_activities" / "error_unknown_command.txt"
    ).read_text()
    assert run(userland, "dumpsys activity com.funnyenglish.app").out == no_activity


def test_activities_dump_uses_the_real_markers(userland: Userland) -> None:
    real = (SAMPLES / "dumpsys_activity_activities" / "mtk_camera_task_format.txt").read_text()
    run(userland, "monkey -p com.example.notes -c android.intent.category.LAUNCHER 1")
    ours = run(userland, "dumpsys activity activities").out
    markers = (
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n",
        "Display #0 (activities from top to bottom):\n",
        "    * Hist  #0: ActivityRecord{",
        "  Resumed activities in task display areas (from top to bottom):\n",
        "    Resumed: ActivityRecord{",
        "  ResumedActivity: ActivityRecord{",
        "ActivityTaskSupervisor state:\n",
        "  mFocusedApp=ActivityRecord{",
    )
    for marker in markers:
        assert marker in real
        assert marker in ours
