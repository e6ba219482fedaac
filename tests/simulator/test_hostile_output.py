"""Hostile userland modes: output that never ends, and screenshots that are bombs."""

from __future__ import annotations

import contextlib
import io
import struct
import zlib
from collections.abc import Generator

import pytest
from PIL import Image

from adbwire.testing.hostile import (
    bomb_png,
    endless_output,
    hostile_userland,
    huge_raw_screencap,
    png_bomb_screencap,
)
from adbwire.testing.hostile.endless import CHUNK_SIZE
from adbwire.wire.services import exec as exec_service
from adbwire.wire.services.shell import Channel
from tests.simulator.hostile_helpers import hostile_device

ENOUGH = 4 * 1024 * 1024  # far more than any real `dumpsys battery`


def test_matching_command_output_never_ends_and_others_run_normally() -> None:
    userland = hostile_userland(endless_output("dumpsys battery", line="  level: {n}"))
    with hostile_device(userland_factory=userland) as (_device, client):
        received = 0
        first = b""
        with client.start_shell("dumpsys battery", timeout=30) as process:
            for channel, data in process.output():
                assert channel is Channel.STDOUT
                first = first or data
                received += len(data)
                if received >= ENOUGH:
                    break
        assert received >= ENOUGH
        assert first.startswith(b"  level: 0\n  level: 1\n")
        # The device serves everything else as usual, on the same connection.
        assert client.shell("getprop ro.product.model").stdout == b"sdk_gphone64_x86_64\n"


def test_every_command_never_ends_over_exec_too() -> None:
    userland = hostile_userland(endless_output(line=b"package:com.hostile.app"))
    with hostile_device(userland_factory=userland) as (_device, client):
        for command in ("pm list packages", "echo hello"):
            seen = bytearray()
            chunks = exec_service.exec_chunks(client.connection, command, timeout=30)
            assert isinstance(chunks, Generator)  # closing it closes the stream
            with contextlib.closing(chunks):
                for chunk in chunks:
                    seen += chunk
                    if len(seen) >= ENOUGH:
                        break
            lines = bytes(seen).split(b"\n")
            assert len(lines) > 100_000
            assert set(lines[:-1]) == {b"package:com.hostile.app"}


def test_endless_output_on_stderr_with_a_prefix() -> None:
    rule = endless_output("logcat", prefix=b"--------- beginning of main\n", channel="stderr")
    with hostile_device(userland_factory=hostile_userland(rule)) as (_device, client):
        seen = bytearray()
        with client.start_shell("logcat -d", timeout=30) as process:
            for channel, data in process.output():
                assert channel is Channel.STDERR
                seen += data
                if len(seen) >= 2 * CHUNK_SIZE:
                    break
        assert seen.startswith(b"--------- beginning of main\nendless output line 0\n")


def test_bomb_png_is_a_small_valid_png_of_huge_dimensions() -> None:
    png = bomb_png()
    assert len(png) < 200_000
    assert png.startswith(b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
    width, height, depth, colour_type = struct.unpack_from(">IIBB", png, 16)
    assert (width, height, depth, colour_type) == (13000, 13000, 8, 0)  # 8-bit greyscale
    assert zlib.decompressobj().decompress(png[41:], 1_000_000) == bytes(1_000_000)
    small = Image.open(io.BytesIO(bomb_png(64, 32)))
    small.load()  # a real, decodable image
    assert small.size == (64, 32)
    assert small.getextrema() == (0, 0)


def test_screencap_png_answers_the_bomb_and_screencap_to_a_file_still_works() -> None:
    with hostile_device(userland_factory=hostile_userland(png_bomb_screencap(640, 480))) as (
        _device,
        client,
    ):
        assert client.exec_out("screencap -p") == bomb_png(640, 480)
        client.shell("screencap -p /sdcard/shot.png")
        real = client.exec_out("cat /sdcard/shot.png")
        assert Image.open(io.BytesIO(real)).size == (1080, 2400)


@pytest.mark.parametrize("body_bytes", [0, None])
def test_raw_screencap_header_claims_huge_dimensions(body_bytes: int | None) -> None:
    width, height = 3000, 2000
    rule = huge_raw_screencap(width, height, body_bytes=body_bytes)
    with hostile_device(userland_factory=hostile_userland(rule)) as (_device, client):
        data = client.exec_out("screencap", timeout=60)
    assert struct.unpack_from("<IIII", data) == (width, height, 1, 1)
    expected_body = width * height * 4 if body_bytes is None else body_bytes
    assert len(data) == 16 + expected_body
    assert data.count(0, 16) == expected_body
