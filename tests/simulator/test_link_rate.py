"""`--link-mbps`: the simulated link carries no more than its rate in either direction."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing.link_rate import LINK_BUFFER, LinkPacer, paced_reader
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey

DeviceFactory = Callable[..., SimulatedDevice]
MBPS = 8.0  # 1 MB/s: 1 MiB, less what the link buffers, takes at least ~0.8 s
SIZE = 1024 * 1024
LEAST = (SIZE - LINK_BUFFER) / (MBPS * 1_000_000 / 8) * 0.9


def test_pacer_spaces_transfers_at_its_rate_beyond_its_buffer() -> None:
    pacer = LinkPacer(MBPS, threading.Event(), buffer=64 * 1024)
    started = time.monotonic()
    pacer.pace(64 * 1024)  # fits the buffer: no wait
    for _ in range(4):
        pacer.pace(64 * 1024)  # 5 x 64 KiB at 1 MB/s, one of them buffered
    assert time.monotonic() - started >= 4 * 64 * 1024 / pacer.bytes_per_second * 0.9


def test_pacer_returns_at_once_when_the_connection_stops() -> None:
    stopped = threading.Event()
    stopped.set()
    pacer = LinkPacer(0.001, stopped)  # 10 bytes would take 80 s
    started = time.monotonic()
    pacer.pace(10)
    assert time.monotonic() - started < 5


def test_paced_reader_without_a_pacer_is_the_reader_itself() -> None:
    def read(view: memoryview) -> int:
        return 0

    assert paced_reader(read, None) is read


@pytest.mark.parametrize("bad", [0.0, -1.0])
def test_rate_must_be_positive(bad: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        DeviceOptions(link_mbps=bad)


def test_push_and_pull_are_held_to_the_link_rate(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, tmp_path: Path
) -> None:
    device = sim_device_factory(DeviceOptions(accept_any_key=True, link_mbps=MBPS))
    source = tmp_path / "blob"
    source.write_bytes(os.urandom(SIZE))  # compression cannot shrink it
    with AdbClient.connect_tcp(device.serial, [adb_key]) as client:
        started = time.monotonic()
        client.push([source], "/data/local/tmp/blob")
        pushed = time.monotonic() - started
        started = time.monotonic()
        client.pull(["/data/local/tmp/blob"], tmp_path / "back")
        pulled = time.monotonic() - started
    assert (tmp_path / "back").read_bytes() == source.read_bytes()
    assert pushed >= LEAST
    assert pulled >= LEAST


def test_cli_passes_the_rate_to_the_device() -> None:
    import argparse  # noqa: PLC0415

    from adbwire.cli import simulate  # noqa: PLC0415

    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers()
    simulate.register(commands)
    args = parser.parse_args(["simulate", "--link-mbps", "40", "--accept-any-key"])
    assert simulate.build_options(args).link_mbps == 40.0
