"""Everything one running server shares between calls and sessions."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.results.paging import Pager
from adbwire.mcp.safety.audit import AuditLog
from adbwire.mcp.safety.paths import LocalRoot
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.sessions import SessionDefaults

if TYPE_CHECKING:
    from adbwire.mcp.catalogue import ToolEntry
    from adbwire.mcp.trace.recorder import TraceRecorder


@dataclass
class App:
    policy: Policy
    devices: DeviceRegistry
    audit: AuditLog
    transport: str = "stdio"
    """stdio, http or memory: decides what a session is (see sessions.py)."""
    pager: Pager = field(default_factory=Pager)
    defaults: SessionDefaults = field(default_factory=SessionDefaults)
    enabled: list[ToolEntry] = field(default_factory=list)
    """The tools this server publishes (their specs load at each tool's first call)."""
    disabled: dict[str, str] = field(default_factory=dict)
    """Tools the policy leaves out, with the reason."""
    services: dict[str, object] = field(default_factory=dict)
    """Long-lived helpers owned by tool families (e.g. the port-forward table)."""
    started: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    trace: TraceRecorder | None = None
    """Records every call into a trace directory (``serve --trace``); None: off."""

    @property
    def local_root(self) -> LocalRoot:
        return LocalRoot(self.policy.local_root)

    def close(self) -> None:
        if self.trace is not None:  # first: its last screens are taken from the devices
            self.trace.close()
        self.close_services()
        self.devices.close()

    def close_services(self) -> None:
        """Close the tool families' helpers, once; before the devices, since some still use
        them (the session ledger restores settings)."""
        services, self.services = list(self.services.values()), {}
        for service in services:
            close = getattr(service, "close", None)
            if callable(close):
                close()
