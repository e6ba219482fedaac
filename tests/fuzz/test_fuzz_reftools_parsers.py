"""Fuzz the parsers behind the reference servers' tools (am instrument, ps, ip, dumpsys
connectivity, cmd wifi status, fragment dumps, Stack #N headers) with mutated real and
simulated captures: each returns a result no larger than its input, or raises the
documented DeviceCommandError; and hostile lines parse in linear time."""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adbwire.device.parsers.fragments import parse_activity_fragments
from adbwire.device.parsers.instrumentation import (
    InstrumentationStream,
    parse_instrumentation,
    parse_instrumentation_list,
)
from adbwire.device.parsers.network import (
    parse_default_network,
    parse_ip_addr,
    parse_route,
    parse_wifi_status,
)
from adbwire.device.parsers.processes import parse_ps
from adbwire.device.parsers.stack_types import task_types_from_stacks
from adbwire.errors import DeviceCommandError
from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.scenario import load_scenario
from adbwire.testing.userland import Userland
from adbwire.testing.userland.process import BufferIO
from tests.device_outputs import DEVICE_OUTPUTS
from tests.fuzz.strategies import FUZZ, mutated_text


def _captures(folder: str) -> list[str]:
    paths = sorted((DEVICE_OUTPUTS / folder).iterdir())
    return [path.read_bytes().decode("utf-8", "replace") for path in paths]


def _simulated(commands: list[str]) -> list[str]:
    """What the simulated phone prints for these commands (the notes app started first)."""
    root = Path(tempfile.mkdtemp(prefix="adbwire-fuzz-"))
    userland = Userland(load_scenario(), DeviceFiles(root))
    outputs = []
    for command in ["monkey -p com.example.notes 1 >/dev/null", *commands]:
        io = BufferIO()
        userland.run(command, io)
        outputs.append(bytes(io.stdout).decode("utf-8", "replace"))
    return outputs[1:]


SEEDS: dict[str, list[str]] = {
    "instrument": _captures("am_instrument"),
    "ps": _captures("ps"),
    "activities": _captures("dumpsys_activity_activities"),
}

Parser = Callable[[str], object]
PARSERS: list[tuple[str, str, Parser]] = [
    ("am instrument", "instrument", lambda t: parse_instrumentation(t).tests),
    ("pm list instrumentation", "instrument", parse_instrumentation_list),
    ("ps", "ps", parse_ps),
    ("ip addr", "activities", parse_ip_addr),
    ("ip route", "activities", parse_route),
    ("dumpsys connectivity", "activities", parse_default_network),
    ("cmd wifi status", "activities", parse_wifi_status),
    ("fragments", "activities", parse_activity_fragments),
    ("stack types", "activities", task_types_from_stacks),
]


def _size(result: object) -> int:
    if isinstance(result, dict):
        return len(result) + sum(_size(v) for v in result.values())
    if isinstance(result, list | tuple):
        return len(result) + sum(_size(v) for v in result)
    return 1


@pytest.fixture(scope="module")
def simulated_seeds() -> list[str]:
    return _simulated(
        [
            "ip addr",
            "ip route get 8.8.8.8",
            "dumpsys connectivity",
            "cmd wifi status",
            "dumpsys activity com.example.notes",
            "ps -A -o PID,PPID,UID,USER,S,RSS,NAME",
        ]
    )


@pytest.mark.parametrize(("name", "seeds", "parse"), PARSERS, ids=[p[0] for p in PARSERS])
def test_reftools_parser_fuzz(
    name: str, seeds: str, parse: Parser, simulated_seeds: list[str]
) -> None:
    @FUZZ
    @given(mutated_text(SEEDS[seeds] + simulated_seeds) | st.text(max_size=2000))
    def check(text: str) -> None:
        try:
            result = parse(text)
        except DeviceCommandError:
            return
        assert _size(result) <= 4 * (text.count("\n") + 2)

    check()


@FUZZ
@given(st.lists(st.text(max_size=300), max_size=40))
def test_the_stream_reads_any_chunking_of_any_text(chunks: list[str]) -> None:
    stream = InstrumentationStream()
    for chunk in chunks:
        stream.feed_text(chunk)
    assert stream.report() == parse_instrumentation("".join(chunks))


@pytest.mark.parametrize(
    "text",
    [
        "INSTRUMENTATION_STATUS: stack=" + "\tat x\n" * 100_000,
        "INSTRUMENTATION_STATUS: test=" + " " * 300_000,
        "  PID  PPID NAME\n" + "1 0 " + "x " * 200_000,
        "1: " + "a" * 200_000 + ": <" + "UP," * 50_000,
        "Active default network: 1\n  NetworkAgentInfo{network{1} LinkAddresses: ["
        + "1," * 100_000,
        'Wifi is connected to "' + "\\" * 200_000,
        "  ACTIVITY a/.B 1 pid=1\n    Active Fragments:\n" + "    F{1} (x)\n" * 50_000,
        "  Stack #1: type=standard\n" + "    * TaskRecord{1 #2 A=x}\n" * 50_000,
    ],
    ids=["trace", "spaces", "ps", "ip", "lp", "ssid", "fragments", "stacks"],
)
def test_long_hostile_input_parses_in_linear_time(text: str) -> None:
    started = time.monotonic()
    parse_instrumentation(text)
    for parse in (parse_ps, parse_ip_addr, parse_default_network, parse_wifi_status):
        with contextlib.suppress(DeviceCommandError):
            parse(text)
    parse_activity_fragments(text)
    task_types_from_stacks(text)
    assert time.monotonic() - started < 15.0
