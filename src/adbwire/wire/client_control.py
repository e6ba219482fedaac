"""`AdbClient`'s device control: reboot, root/unroot, tcpip/usb, remount. A restart of
adbd ends the link; `root` and `unroot` connect again and the client adopts the new one.

The control service loads on first use: `adbwire -s S shell` restarts nothing (#20)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from adbwire.wire.connection import Connection

if TYPE_CHECKING:
    from adbwire.wire.services.control import AdbdRestart, RebootMode

ConnectionFactory = Callable[[], Connection]


class _HasConnection(Protocol):
    connection: Connection


ClientFactory = Callable[[], "Connection | _HasConnection"]
"""Makes a fresh link to the same device: a Connection or a client holding one."""


class ControlMethods:
    """Mixed into `AdbClient` (which provides `reconnect` and `_close_forwards`)."""

    connection: Connection
    reconnect: ClientFactory | None

    def _close_forwards(self) -> None:
        raise NotImplementedError  # ForwardingMethods' (AdbClient lists it first)

    def reboot(self, mode: RebootMode | str = "", *, timeout: float | None = None) -> str:
        """Reboot into `mode`, a RebootMode or its value ("", RebootMode.SYSTEM: the system)."""
        from adbwire.wire.services import control  # noqa: PLC0415 - see the module's docstring

        return control.reboot(self.connection, mode, timeout=timeout)

    def root(
        self, *, wait: float = 30.0, reconnect: bool = True, timeout: float | None = None
    ) -> AdbdRestart:
        """Restart adbd as root and, unless `reconnect` is False, connect again (when the
        client knows how to) and adopt the new link."""
        from adbwire.wire.services import control  # noqa: PLC0415

        factory = self._reconnect_factory() if reconnect else None
        return self._adopt(
            control.root(self.connection, reconnect_with=factory, wait=wait, timeout=timeout)
        )

    def unroot(
        self, *, wait: float = 30.0, reconnect: bool = True, timeout: float | None = None
    ) -> AdbdRestart:
        from adbwire.wire.services import control  # noqa: PLC0415

        factory = self._reconnect_factory() if reconnect else None
        return self._adopt(
            control.unroot(self.connection, reconnect_with=factory, wait=wait, timeout=timeout)
        )

    def tcpip(self, port: int, *, timeout: float | None = None) -> AdbdRestart:
        """Restart adbd listening on TCP `port` (this connection then ends)."""
        from adbwire.wire.services import control  # noqa: PLC0415

        return control.tcpip(self.connection, port, timeout=timeout)

    def usb(self, *, timeout: float | None = None) -> AdbdRestart:
        from adbwire.wire.services import control  # noqa: PLC0415

        return control.usb(self.connection, timeout=timeout)

    def remount(self, *, reboot_if_needed: bool = False, timeout: float | None = None) -> str:
        from adbwire.wire.services import control  # noqa: PLC0415

        return control.remount(self.connection, reboot_if_needed=reboot_if_needed, timeout=timeout)

    def _reconnect_factory(self) -> ConnectionFactory | None:
        make = self.reconnect
        if make is None:
            return None

        def connect() -> Connection:
            made = make()
            return made if isinstance(made, Connection) else made.connection

        return connect

    def _adopt(self, restart: AdbdRestart) -> AdbdRestart:
        if restart.connection is not None:
            self._close_forwards()
            self.connection = restart.connection
        return restart
