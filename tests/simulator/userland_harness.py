"""Helpers for the userland tests: a Userland on a temporary file tree, and a way to run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.scenario import Scenario, load_scenario
from adbwire.testing.userland import BufferIO, Userland


@dataclass
class Result:
    status: int
    out: str
    err: str
    raw: bytes


def make_userland(root: Path, scenario: Scenario | None = None) -> Userland:
    return Userland(scenario or load_scenario(), DeviceFiles(root))


def run(userland: Userland, command: str, stdin: bytes = b"") -> Result:
    io = BufferIO(stdin)
    status = userland.run(command, io)
    out = bytes(io.stdout)
    return Result(status, out.decode("utf-8", "replace"), io.stderr.decode(), out)
