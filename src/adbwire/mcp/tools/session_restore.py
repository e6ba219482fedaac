"""What a session changed on a device, put back when the session ends.

Setting tools record how to restore the original (``remember``) unless the call asked to keep
its change; the session's end (``sessions.on_session_end``) restores what no other session
still holds (``device.settings.ledger``). Requests without a session (stateless HTTP) are
restored when the server stops, as is anything left when it does.
"""

from __future__ import annotations

from collections.abc import Hashable

import anyio.to_thread

from adbwire.device.settings.ledger import Restore, RestoreLedger
from adbwire.device.ui.animations import SCALES, read_scales, write_scales
from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.server.sessions import on_session_end
from adbwire.wire.client import AdbClient

SERVICE = "session_restore"
SERVER = "server"
"""The holder of changes made by requests without a session."""
ANIMATIONS = "animation_scales"


class SessionRestore:
    def __init__(self, devices: DeviceRegistry) -> None:
        self.ledger = RestoreLedger()
        self._devices = devices

    def client(self, serial: str) -> AdbClient:
        return self._devices.client(serial)

    async def end(self, session: Hashable) -> None:
        # A worker that finishes even if the server's teardown stops waiting for it.
        await anyio.to_thread.run_sync(
            self.ledger.end_session, session, self.client, abandon_on_cancel=True
        )

    def close(self) -> None:
        self.ledger.restore_all(self.client)


def restorer(call: ToolCall) -> SessionRestore:
    found = call.app.services.get(SERVICE)
    if found is None:
        found = call.app.services[SERVICE] = SessionRestore(call.app.devices)
    assert isinstance(found, SessionRestore)
    return found


def registry_serial(call: ToolCall) -> str:
    """The serial the server knows the device by (a replay's client says another)."""
    return call.serial or call.client.serial


def session_of(call: ToolCall) -> Hashable:
    """The caller's session, its end watched; SERVER for requests without one. Call it on the
    event loop."""
    token = on_session_end(call.ctx, call.app.transport, SERVICE, restorer(call).end)
    return SERVER if token is None else token


def remember(
    call: ToolCall, session: Hashable, key: str, what: str, restore: Restore, *, keep: bool
) -> str:
    """Record how to undo ``key`` (or, with ``keep``, that nobody should); the words for the
    result's ``restore`` field."""
    ledger = restorer(call).ledger
    if keep:
        ledger.keep(registry_serial(call), key)
        return "kept"
    ledger.record(session, registry_serial(call), key, what, restore)
    return "at session end" if session != SERVER else "when the server stops"


def disable_animations(call: ToolCall, session: Hashable) -> None:
    """Animation scales to 0, the originals restored when the session ends. Blocking."""
    ledger = restorer(call).ledger
    client, serial = call.client, registry_serial(call)
    if not ledger.holds(serial, ANIMATIONS):
        original = read_scales(client)
        ledger.record(session, serial, ANIMATIONS, "animation scales",
                      lambda c: write_scales(c, original))  # fmt: skip
    else:  # another session's original is kept; this one only holds it too
        ledger.record(session, serial, ANIMATIONS, "animation scales", lambda c: None)
    write_scales(client, dict.fromkeys(SCALES, "0"))
