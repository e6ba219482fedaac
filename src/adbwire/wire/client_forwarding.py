"""`AdbClient`'s port forwarding, both ways: `forward` (a host port to a device socket)
and `reverse` (a device port to a host one), each relayed by one forwarder the client
keeps until it closes. The forward and reverse modules load on first use (#20)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection
    from adbwire.wire.services.forward import Forward, PortForwarder
    from adbwire.wire.services.reverse import ReverseForwarder, ReverseListing


class ForwardingMethods:
    """Mixed into `AdbClient`, which sets both forwarders to None when it is made."""

    connection: Connection
    _forwarder: PortForwarder | None
    _reverser: ReverseForwarder | None

    def forward(self, local: str, remote: str) -> Forward:
        """Relay a loopback port to a device socket until removed or the client closes."""
        from adbwire.wire.services.forward import PortForwarder  # noqa: PLC0415

        if self._forwarder is None:
            self._forwarder = PortForwarder(self.connection)
        return self._forwarder.forward(local, remote)

    def port_forwarder(
        self, *, max_connections: int = 64, open_timeout: float | None = None
    ) -> PortForwarder:
        """A forwarder of its own over this client's link (the caller closes it); `forward`
        uses one the client keeps."""
        from adbwire.wire.services.forward import PortForwarder  # noqa: PLC0415

        return PortForwarder(
            self.connection, max_connections=max_connections, open_timeout=open_timeout
        )

    def reverse_forwarder(
        self, *, max_streams: int | None = None, timeout: float | None = None
    ) -> ReverseForwarder:
        """A reverse forwarder of its own over this client's link (the caller closes it);
        `reverse` uses one the client keeps. A link relays for one forwarder at a time.
        `max_streams` defaults to reverse.DEFAULT_MAX_STREAMS."""
        from adbwire.wire.services import reverse  # noqa: PLC0415

        if max_streams is None:
            max_streams = reverse.DEFAULT_MAX_STREAMS
        return reverse.ReverseForwarder(self.connection, max_streams=max_streams, timeout=timeout)

    @property
    def forwards(self) -> list[Forward]:
        return [] if self._forwarder is None else self._forwarder.list_forwards()

    def reverse(self, remote: str, local: str, *, rebind: bool = True) -> str:
        """Have the device listen on `remote` and relay its connections to `local`
        (tcp:PORT on this host) while this client lives; returns the device-side spec
        (`tcp:0` becomes the port the device picked)."""
        return self._reverses().reverse(remote, local, rebind=rebind)

    def reverses(self) -> list[ReverseListing]:
        """The device's reverse listeners, as it lists them for this connection."""
        return self._reverses().list_reverses()

    def remove_reverse(self, remote: str) -> None:
        self._reverses().remove(remote)

    def _reverses(self) -> ReverseForwarder:
        from adbwire.wire.services.reverse import ReverseForwarder  # noqa: PLC0415

        if self._reverser is None:
            self._reverser = ReverseForwarder(self.connection)
        return self._reverser

    def _close_forwards(self) -> None:
        if self._forwarder is not None:
            self._forwarder.close()
            self._forwarder = None
        if self._reverser is not None:
            self._reverser.close()
            self._reverser = None
