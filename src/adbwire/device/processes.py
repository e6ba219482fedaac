"""The device's processes: toybox ``ps -A -o ...`` (Android 8+), else toolbox ``ps``."""

from __future__ import annotations

from dataclasses import dataclass

from adbwire.device import commands
from adbwire.device.parsers._text import lines_of
from adbwire.device.parsers.processes import ProcessEntry, is_toolbox_header_only, parse_ps
from adbwire.wire.client import AdbClient

PS_FIELDS = "PID,PPID,UID,USER,S,RSS,NAME"
"""NAME last: the one column that may hold spaces. UID lets a cut user name be rebuilt."""


@dataclass(frozen=True)
class ProcessListing:
    processes: tuple[ProcessEntry, ...]
    source: str
    """``toybox`` (ps -A -o) or ``toolbox`` (Android 7 and older: plain ps)."""


def list_processes(client: AdbClient) -> ProcessListing:
    """Every process; old toolbox ps (which reads ``-A`` as a name filter and prints only
    its header) is asked again without options."""
    result = commands.run(client, ["ps", "-A", "-o", PS_FIELDS])
    text = commands.decode(result.stdout)
    if result.exit_code == 0 and _is_toybox_listing(text):
        return ProcessListing(tuple(parse_ps(text)), "toybox")
    return ProcessListing(tuple(parse_ps(commands.text(client, ["ps"]))), "toolbox")


def _is_toybox_listing(text: str) -> bool:
    if is_toolbox_header_only(text):
        return False
    header = next((line.split() for line in lines_of(text) if line.strip()), [])
    return header[:2] == ["PID", "PPID"] and header[-1] == "NAME"


def select(
    processes: tuple[ProcessEntry, ...], *, package: str | None = None, name: str | None = None
) -> list[ProcessEntry]:
    """The processes of `package` (its main process and its ``package:suffix`` ones) whose
    name contains `name`; both filters optional."""
    chosen = []
    for process in processes:
        if package is not None and process.package != package:
            continue
        if name is not None and name not in process.name:
            continue
        chosen.append(process)
    return chosen
