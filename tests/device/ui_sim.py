"""A simulated device whose userland records every command it runs and lets a test replace
one (to make `uiautomator` fail, or to act when a command runs), plus a connected client."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from adbwire.testing import DeviceFiles, DeviceOptions, SimulatedDevice, running_device
from adbwire.testing.scenario import load_scenario
from adbwire.testing.userland import Userland
from adbwire.testing.userland.android.state import AndroidState
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.wire.client import AdbClient

Hook = Callable[[Invocation, CommandFn], int]


class SpyUserland(Userland):
    def __init__(self, files: DeviceFiles) -> None:
        super().__init__(load_scenario(), files)
        self.calls: list[list[str]] = []
        self.hooks: dict[str, Hook] = {}
        original = self.device.lookup

        def lookup(name: str) -> CommandFn | None:
            command = original(name)
            if command is None:
                return None

            def run(inv: Invocation) -> int:
                self.calls.append([name, *inv.args])
                hook = self.hooks.get(name)
                return hook(inv, command) if hook else command(inv)

            return run

        self.device.lookup = lookup  # type: ignore[method-assign]

    @property
    def state(self) -> AndroidState:
        return self.device.state

    def screen(self) -> str | None:
        visit = self.state.current()
        return visit.screen.id if visit is not None else None

    def commands_named(self, name: str) -> list[list[str]]:
        return [call for call in self.calls if call[0] == name]


@dataclass
class Sim:
    device: SimulatedDevice
    userland: SpyUserland
    client: AdbClient
    extra: dict[str, Any] = field(default_factory=dict)

    def show(self, screen: str) -> None:
        """Put a screen on top (as an app launch would), under the state lock."""
        with self.userland.state.lock:
            self.userland.state.nav.show(screen)


@contextlib.contextmanager
def simulated(screen: str | None = None, **options: Any) -> Iterator[Sim]:
    made: list[SpyUserland] = []

    def factory(files: DeviceFiles) -> SpyUserland:
        userland = SpyUserland(files)
        made.append(userland)
        return userland

    options.setdefault("auth_required", False)
    with (
        running_device(DeviceOptions(**options), factory) as device,
        AdbClient.connect_tcp(device.serial, []) as client,
    ):
        sim = Sim(device, made[0], client)
        if screen is not None:
            sim.show(screen)
        yield sim


def drop_link_at_next_dump(sim: Sim) -> None:
    """The client's connection closes while the next `uiautomator dump` runs."""

    def hook(inv: Invocation, command: CommandFn) -> int:
        threading.Thread(target=sim.client.close).start()
        return command(inv)

    sim.userland.hooks["uiautomator"] = hook
