"""What every device service gets: the stream it serves and the device it runs on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from adbwire.testing.device_state import DeviceState
from adbwire.testing.stream import DeviceStream

if TYPE_CHECKING:
    from adbwire.testing.reverse_listeners import HostLink

__all__ = ["ServiceContext", "ServiceHandler"]

ServiceHandler = Callable[[DeviceStream], None]
"""Runs in a worker thread for the life of one stream; the stream is closed after it returns."""


@dataclass(frozen=True)
class ServiceContext:
    state: DeviceState
    kick: Callable[[], None]
    """Drop this connection once what was written has gone out (adbd restarting)."""
    host_features: frozenset[str]
    link: HostLink | None = None
    """The connection itself, for services that open streams to the host (reverse:)."""
