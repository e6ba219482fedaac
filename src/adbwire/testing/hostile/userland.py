"""Hostile answers to shell and exec commands: a userland wrapper that lets rules take over.

`hostile_userland(*rules, base=None)` is a `UserlandFactory`: each command line goes to the
first rule whose matcher accepts it, every other command to the wrapped userland (the
default scenario unless `base` says otherwise). A matcher is a regular expression searched
in the command line, a predicate, or None for every command.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.device_state import ProcessIO, UserlandLike

__all__ = ["CommandMatch", "HostileUserland", "Invocation", "Rule", "hostile_userland", "matcher"]

CommandMatch = str | re.Pattern[str] | Callable[[str], bool] | None
"""What selects the commands a rule answers (see `matcher`)."""


@dataclass(frozen=True)
class Invocation:
    """One command a rule answers: what was asked, where the output goes, and the userland
    underneath (for rules that start from the real answer)."""

    command: str
    io: ProcessIO
    pty: bool
    userland: UserlandLike


@dataclass(frozen=True)
class Rule:
    """`respond` runs instead of the userland for every command `matches` accepts; it
    returns the exit status (and may raise StreamClosed, as any command may)."""

    matches: Callable[[str], bool]
    respond: Callable[[Invocation], int]


def matcher(
    match: CommandMatch,
) -> Callable[[str], bool]:
    """None: every command; a string or pattern: a regular expression searched in the
    command line; a callable: used as it is."""
    if match is None:
        return lambda _command: True
    if isinstance(match, (str, re.Pattern)):
        pattern = re.compile(match)
        return lambda command: pattern.search(command) is not None
    return match


class HostileUserland:
    """A userland whose commands go through `rules` first (see the module docstring)."""

    def __init__(self, inner: UserlandLike, rules: Sequence[Rule]) -> None:
        self.inner = inner
        self.rules = tuple(rules)

    def run(self, command_line: str, io: ProcessIO, *, pty: bool = False) -> int:
        for rule in self.rules:
            if rule.matches(command_line):
                return rule.respond(Invocation(command_line, io, pty, self.inner))
        return self.inner.run(command_line, io, pty=pty)

    def install_apk(
        self, apk: bytes | BinaryIO, size: int, options: Sequence[str]
    ) -> tuple[bool, str]:
        return self.inner.install_apk(apk, size, options)

    @property
    def properties(self) -> Mapping[str, str]:
        return self.inner.properties

    def on_reboot(self, mode: str) -> None:
        self.inner.on_reboot(mode)

    def __getattr__(self, name: str) -> Any:
        # Optional hooks (on_root_changed) and the real userland's own attributes (device).
        return getattr(self.inner, name)


def hostile_userland(
    *rules: Rule, base: Callable[[DeviceFiles], UserlandLike] | None = None
) -> Callable[[DeviceFiles], UserlandLike]:
    """A userland factory for `SimulatedDevice` / `running_device`: `rules` over `base`
    (default: the scripted userland with the default scenario)."""

    def factory(files: DeviceFiles) -> UserlandLike:
        from adbwire.testing.server import default_userland_factory  # noqa: PLC0415 - cycle

        inner = (base or default_userland_factory)(files)
        return HostileUserland(inner, rules)

    return factory
