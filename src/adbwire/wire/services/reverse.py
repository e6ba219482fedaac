"""Reverse forwarding (`adb reverse`): a listener on the device whose connections reach a
port on this host.

The host asks adbd (`reverse:forward:REMOTE;LOCAL`); adbd listens on REMOTE and, for each
connection made to it, opens a stream to us naming LOCAL (an OPEN packet from the device).
We connect that stream to 127.0.0.1:PORT and relay both ways (`forward_relay`).

A device-opened stream is untrusted: it is accepted only when it names a LOCAL this
forwarder set up (anything else is refused with CLSE, as adb refuses an unknown service),
at most `max_streams` at once, and connecting to the host port has a deadline. Like adbd,
the device drops its listeners when the connection ends, so they live as long as the
`ReverseForwarder` (there is no adb server to keep them).
"""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass

from adbwire.errors import AdbwireError, DeviceCommandError, RemoteProtocolError, UsageError
from adbwire.wire.connection import Connection
from adbwire.wire.services.forward import LOOPBACK, check_remote, parse_local
from adbwire.wire.services.forward_relay import Relay
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Deadline

log = logging.getLogger(__name__)

DEFAULT_MAX_STREAMS = 64
CONNECT_SECONDS = 5.0
CHECK_SECONDS = 0.5
CLEANUP_SECONDS = 5.0
"""How long closing waits for the device to drop a listener (Ctrl-C must not hang)."""
LOG_FIRST = 10
LOG_EVERY = 1000
"""Refused device-opened streams: the first LOG_FIRST are logged, then one in LOG_EVERY."""
MAX_REPLY = 64 * 1024
"""The longest status message or listing we read from the device."""

_TCP_ZERO = re.compile(r"tcp:0+")


@dataclass(frozen=True)
class ReverseListing:
    """One line of the device's `reverse:list-forward`: who, device side, host side."""

    transport: str
    remote: str
    local: str


def check_reverse_remote(spec: str) -> str:
    """A device-side spec as `forward` takes it, and also `tcp:0` (the device picks)."""
    return spec if _TCP_ZERO.fullmatch(spec) else check_remote(spec)


def check_reverse_local(spec: str) -> int:
    """The host port of LOCAL: only `tcp:PORT` with a real port can be reached here."""
    port = parse_local(spec)
    if port == 0:
        raise UsageError(f"local {spec!r}: the host port must be from 1 to 65535")
    return port


class ReverseForwarder:
    """The reverse forwards of one device connection: set up, list, remove, relay."""

    def __init__(
        self,
        connection: Connection,
        *,
        max_streams: int = DEFAULT_MAX_STREAMS,
        connect_timeout: float = CONNECT_SECONDS,
        timeout: float | None = None,
    ) -> None:
        if max_streams < 1:
            raise UsageError("max_streams must be at least 1")
        if connection.offer_handler is not None:
            raise UsageError("this connection already relays reverse forwards")
        self.connection = connection
        self._max_streams = max_streams
        self._connect_timeout = connect_timeout
        self._timeout = timeout
        self._lock = threading.Lock()
        self._destinations: dict[str, str] = {}
        """Device-side spec (as the device reports it) -> the host spec it reaches."""
        self._relays: set[Relay] = set()
        self._refusals = 0
        self._closed = False
        self._done = threading.Event()
        connection.offer_handler = self._offer

    # ----------------------------------------------------------- requests to adbd

    def reverse(self, remote: str, local: str, *, rebind: bool = True) -> str:
        """Have the device listen on `remote` and relay its connections to `local`.

        Returns the device-side spec (`tcp:0` becomes the port the device picked)."""
        check_reverse_remote(remote)
        check_reverse_local(local)
        command = f"forward:{'' if rebind else 'norebind:'}{remote};{local}"
        with self._lock:
            if self._closed:
                raise UsageError("this ReverseForwarder is closed")
            # Allowed before the device is asked: it may connect as soon as it listens.
            self._destinations[remote] = local
        try:
            resolved = self._request(command)
        except BaseException:
            with self._lock:
                if self._destinations.get(remote) == local:
                    del self._destinations[remote]
            raise
        if _TCP_ZERO.fullmatch(remote):
            if not resolved.isdigit() or not 0 < int(resolved) < 65536:
                raise RemoteProtocolError(f"the device picked no usable port: {resolved!r}")
            remote_resolved = f"tcp:{int(resolved)}"
            with self._lock:
                self._destinations.pop(remote, None)
                self._destinations[remote_resolved] = local
            remote = remote_resolved
        log.info("reverse forwarding device %s -> %s", remote, local)
        return remote

    def list_reverses(self) -> list[ReverseListing]:
        """What the device says it listens on for this connection."""
        listing = []
        for line in self._request("list-forward", status=False).splitlines():
            fields = line.split(" ")
            if len(fields) == 3:
                listing.append(ReverseListing(*fields))
        return listing

    def remove(self, remote: str) -> None:
        """Stop the device listening on `remote` (DeviceCommandError: no such listener)."""
        self._request(f"killforward:{remote}")
        with self._lock:
            self._destinations.pop(remote, None)

    def remove_all(self) -> None:
        self._request("killforward-all")
        with self._lock:
            self._destinations.clear()

    def _request(self, command: str, *, status: bool = True, timeout: float | None = None) -> str:
        """Run `reverse:COMMAND`: adbd answers OKAY (then maybe a length-prefixed text) or
        FAIL with a length-prefixed message; a listing is only the text."""
        seconds = timeout or self._timeout or self.connection.timeouts.operation
        deadline = Deadline(seconds, "reverse")
        with self.connection.open_stream(f"reverse:{command}", deadline.remaining()) as stream:
            if not status:
                return _read_text(stream, deadline)
            status_word = stream.read_exactly(4, deadline)
            if status_word == b"FAIL":
                raise DeviceCommandError(_read_text(stream, deadline))
            if status_word != b"OKAY":
                raise RemoteProtocolError(f"reverse {command!r}: unexpected reply {status_word!r}")
            head = stream.read(4, deadline)
            if not head:
                return ""
            return _read_text(stream, deadline, head)

    # ----------------------------------------------------------- device-opened streams

    def _offer(self, service: str) -> Callable[[Stream], None] | None:
        """Called by the reader thread under the connection's lock: decide at once."""
        with self._lock:
            if self._closed or service not in self._destinations.values():
                # The name is the device's text: shown escaped and cut short.
                self._log_refusal("reverse: refused a stream the device opened to %r", service[:80])
                return None
            if len(self._relays) >= self._max_streams:
                self._log_refusal(
                    "reverse: %d streams already relayed; refused one more to %s",
                    len(self._relays),
                    service,
                )
                return None
        return lambda stream: self._start_relay(stream, service)

    def _log_refusal(self, message: str, *args: object) -> None:
        """The first refusals, then one in LOG_EVERY: a device opening streams in a loop
        must not flood the log (lock held)."""
        self._refusals += 1
        if self._refusals <= LOG_FIRST or self._refusals % LOG_EVERY == 0:
            log.warning(message + " (%d refused so far)", *args, self._refusals)

    def _start_relay(self, stream: Stream, local: str) -> None:
        try:
            relay = _ReverseRelay(
                self.connection,
                stream,
                check_reverse_local(local),
                connect_timeout=self._connect_timeout,
                on_done=self._relay_done,
            )
        except OSError as exc:  # out of sockets: refuse this stream, keep the connection
            log.warning("reverse %s: no socket for it: %s; closed it", local, exc)
            stream.close()
            return
        with self._lock:
            if self._closed:
                stream.close()
                return
            self._relays.add(relay)
        relay.start()

    def _relay_done(self, relay: Relay) -> None:
        with self._lock:
            self._relays.discard(relay)

    @property
    def active_streams(self) -> int:
        with self._lock:
            return len(self._relays)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the connection ends or this forwarder is closed (True), or until
        `timeout` passes (False). A lost connection is noticed within half a second."""
        deadline = Deadline(timeout, "waiting for the reverse forwards to end")
        while self.connection.failure is None:
            remaining = deadline.remaining()
            if remaining is not None and remaining <= 0:
                return False
            step = CHECK_SECONDS if remaining is None else min(remaining, CHECK_SECONDS)
            if self._done.wait(step):
                break
        return True

    # ----------------------------------------------------------- closing

    def close(self) -> None:
        """Stop relaying, and ask the device to drop its listeners if it is still there."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._done.set()
            ours = list(self._destinations)
            self._destinations.clear()
            relays = list(self._relays)
        if self.connection.offer_handler == self._offer:
            self.connection.offer_handler = None
        for remote in ours:  # only ours: adbd's table also holds other connections' ones
            if self.connection.failure is not None:
                break
            with contextlib.suppress(AdbwireError):
                self._request(f"killforward:{remote}", timeout=CLEANUP_SECONDS)
        for relay in relays:
            relay.close()
        for relay in relays:
            relay.join()

    def __enter__(self) -> ReverseForwarder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _ReverseRelay(Relay):
    """A `Relay` whose device stream already exists and whose host socket it connects."""

    def __init__(
        self,
        connection: Connection,
        stream: Stream,
        port: int,
        *,
        connect_timeout: float,
        on_done: Callable[[Relay], None],
    ) -> None:
        super().__init__(
            connection,
            socket.socket(socket.AF_INET, socket.SOCK_STREAM),
            stream.service,
            label=f"reverse {stream.service}",
            open_timeout=connect_timeout,
            on_done=on_done,
            on_connection_lost=_ignore,
        )
        self._given = stream
        self._port = port

    def _open(self) -> Stream | None:
        stream = self._given
        try:
            self._client.settimeout(self._open_timeout)
            self._client.connect((LOOPBACK, self._port))
            self._client.settimeout(None)
            self._client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError as exc:
            log.warning(
                "reverse %s: cannot connect to %s:%d: %s; closed the device's connection",
                stream.service,
                LOOPBACK,
                self._port,
                exc.strerror or exc,
            )
            stream.close()
            return None
        with self._lock:
            if self._closing:
                stream.close()
                return None
            self._stream = stream
        return stream

    def close(self) -> None:
        super().close()
        self._given.close()


def _ignore(_error: AdbwireError) -> None:
    """A lost connection ends every stream; the forwarder's owner learns it from there."""


def _read_text(stream: Stream, deadline: Deadline, head: bytes | None = None) -> str:
    """A length-prefixed text: four hex digits, then that many bytes."""
    length_text = head if head is not None else stream.read_exactly(4, deadline)
    if len(length_text) < 4:
        length_text += stream.read_exactly(4 - len(length_text), deadline)
    try:
        length = int(length_text, 16)
    except ValueError:
        raise RemoteProtocolError(f"reverse: bad length {length_text!r}") from None
    if length > MAX_REPLY:
        raise RemoteProtocolError(f"reverse: a reply of {length} bytes is too long")
    return stream.read_exactly(length, deadline).decode("utf-8", errors="replace")
