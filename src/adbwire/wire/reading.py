"""Who reads the link: a caller waiting for a packet, or the reader thread (leader/follower).

A round trip used to cost a hand-off per packet: the reader thread received it, then woke
the caller that waited for it. Now a caller that must wait reads the transport itself when
nobody else does (it leads): it reads and dispatches every packet, for every stream, until
one brings news for itself, then hands the lead back. Callers that wait meanwhile follow:
the leader's dispatch wakes them like the reader thread did, and when it stops leading it
wakes them all, so one of them leads next. The reader thread reads only when no caller
leads or waits, and only after a short grace (back-to-back calls then never wake it);
while it reads, waiting callers follow it, and it hands over after the packet in hand.
Bulk payloads are the exception: the reader thread keeps reading through them, and a
caller that got one hands the link straight back, so the next payload is received while
the caller writes this one to a file (a transfer keeps its two threads at work).

Only transports that can be read from any thread within a time limit take part
(`CallerReadable`); with any other the reader thread alone reads, as before.

Every wait stays bounded: a leader reads within its caller's time limit (a packet cut off
by it is kept by the transport, and whoever reads next goes on with it), closing its stream
interrupts its read, and a failed link fails its read.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from adbwire.errors import AdbwireError, DisconnectedError
from adbwire.wire import packets as P
from adbwire.wire.lazy_logging import get_logger
from adbwire.wire.transport import CallerReadable, Transport
from adbwire.wire.wakeup import Wakeup

log = get_logger(__name__)

READER_GRACE = 0.01
"""Seconds the reader thread leaves the link to callers after the last one stopped leading."""

BULK_PAYLOAD = 32 * 1024
"""A payload this large means a transfer: the reader thread reads the next one meanwhile
(the caller is busy with this one), so it does not hand over, and a caller who got such a
payload hands the link straight back to it."""

PacketHandler = Callable[[P.Header, bytes | bytearray, "Wakeup | None"], bool]
"""Dispatches one packet (state lock not held); True when it brought news for the waiter
whose wake-up is given (that one is then not set)."""


class PacketReader:
    """Reads packets off one transport for a connection; see the module docstring."""

    def __init__(
        self,
        transport: Transport,
        lock: threading.Lock,
        handle: PacketHandler,
        fail: Callable[[AdbwireError], None],
        payload_limit: Callable[[], int],
    ) -> None:
        self._transport = transport
        self._lock = lock
        self._handle = handle
        self._fail = fail
        self._payload_limit = payload_limit
        self._thread = threading.Thread(
            target=self._run, name=f"adbwire-reader-{transport.address}", daemon=True
        )
        self._callers_read = False
        self._caller_readable: CallerReadable | None = None
        self._leader: Wakeup | None = None
        """The wake-up of the caller reading now (the reader thread has its own)."""
        self._followers: list[Wakeup] = []
        self._wanted = False
        """A caller waited while the reader thread read: it hands over after the packet."""
        self._idle_since = -math.inf
        self._turn = Wakeup()
        self._parked = False
        """The reader thread waits without a time limit: the next idle moment must wake it."""
        self._stopped = False
        self._read_on = False
        """A leader got a bulk payload: the reader thread reads on at once, with no grace."""
        self._header: P.Header | None = None
        """A packet whose payload a leader's time limit cut off."""

    # ----------------------------------------------------------- life cycle

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def start(self) -> None:
        self._thread.start()

    def let_callers_read(self) -> None:
        """From now on (the handshake is over) callers may lead, if the transport allows."""
        transport = self._transport
        if isinstance(transport, CallerReadable) and transport.caller_readable:
            self._caller_readable = transport
            self._callers_read = True

    def stop(self) -> None:
        """The link failed or was closed: the reader thread ends (callers' reads fail)."""
        with self._lock:
            self._stopped = True
        self._turn.set()

    # ----------------------------------------------------------- callers

    def wait(self, wakeup: Wakeup, timeout: float | None) -> None:
        """Wait up to `timeout` seconds (None: no limit) for news for the caller that owns
        `wakeup`, reading the link meanwhile when nobody else does. It may return without
        news: callers check their state again, as after `Wakeup.wait`."""
        if not self._callers_read:
            wakeup.wait(timeout)
            return
        with self._lock:
            lead = self._leader is None and not self._stopped
            if lead:
                self._leader = wakeup
            else:
                self._followers.append(wakeup)
                self._wanted = True
        if not lead:
            try:
                wakeup.wait(timeout)
            finally:
                self._stop_following(wakeup)
            return
        try:
            self._lead(wakeup, timeout)
        finally:
            self._hand_back()

    def interrupt(self, *wakeups: Wakeup) -> None:
        """A stream closed by another thread: stop its caller's read if it is leading."""
        with self._lock:
            leading = self._leader is not None and self._leader in wakeups
        if leading and self._caller_readable is not None:
            self._caller_readable.interrupt_read()

    def _lead(self, wakeup: Wakeup, timeout: float | None) -> None:
        until = math.inf if timeout is None else time.monotonic() + timeout
        try:
            while not self._stopped:
                left = max(0.0, until - time.monotonic())  # math.inf: no limit, interruptible
                packet = self._read_packet(left)
                if packet is None:
                    return  # out of time, or interrupted
                if self._handle(packet[0], packet[1], wakeup):
                    self._read_on = packet[0].length >= BULK_PAYLOAD
                    self._drain(wakeup)
                    return
        except AdbwireError as exc:
            self._fail(exc)  # the caller finds the error in its stream
        except BaseException as exc:
            # Interrupted in the middle of a packet (KeyboardInterrupt, a bug): the link is
            # out of step with the device and cannot be used any more.
            self._fail(DisconnectedError(f"{self._transport.address}: read interrupted ({exc!r})"))
            raise

    def _drain(self, wakeup: Wakeup) -> None:
        """Dispatch the packets already received, as the reader thread would: the device's
        next packets (its output, its CLSE) often came with the one the caller wanted."""
        transport = self._caller_readable
        assert transport is not None
        while transport.read_ahead >= P.HEADER_SIZE and not self._stopped:
            packet = self._read_packet(0.0)
            if packet is None:
                return  # a payload still on its way: whoever reads next goes on with it
            self._handle(packet[0], packet[1], wakeup)

    def _stop_following(self, wakeup: Wakeup) -> None:
        with self._lock:
            if wakeup in self._followers:
                self._followers.remove(wakeup)
            wake_reader = self._went_idle()
        if wake_reader:
            self._turn.set()

    def _hand_back(self) -> None:
        with self._lock:
            self._leader = None
            followers = list(self._followers)
            wake_reader = self._went_idle()
            if self._read_on and not followers:
                self._idle_since = -math.inf
                wake_reader = True
        for follower in followers:
            follower.set()  # each checks its state; one of those still waiting leads next
        if wake_reader:
            self._turn.set()

    def _went_idle(self) -> bool:
        """Note when nobody leads or waits any more (lock held); True: wake the reader."""
        if self._leader is not None or self._followers:
            return False
        self._idle_since = time.monotonic()
        return self._parked

    # ----------------------------------------------------------- the reader thread

    def _run(self) -> None:
        try:
            while self._my_turn():
                while True:
                    packet = self._read_packet(None)
                    assert packet is not None  # a read without a time limit ends with bytes
                    self._handle(packet[0], packet[1], None)
                    bulk = packet[0].length >= BULK_PAYLOAD
                    if self._callers_read and not bulk and self._hand_over():
                        break
        except AdbwireError as exc:
            self._fail(exc)
        except Exception as exc:  # a bug: fail loudly but keep waiters from hanging
            log.exception("adbwire reader thread crashed")
            self._fail(DisconnectedError(f"internal error in the connection reader: {exc!r}"))

    def _my_turn(self) -> bool:
        """Wait until nobody leads or waits and the grace is over, then lead (False: stop)."""
        while True:
            with self._lock:
                if self._stopped:
                    return False
                if self._leader is None and not self._followers:
                    left = self._idle_since + READER_GRACE - time.monotonic()
                    if left <= 0 or not self._callers_read:
                        self._leader = self._turn
                        self._parked = self._wanted = self._read_on = False
                        return True
                else:
                    left = None
                self._parked = left is None
            self._turn.wait(left)

    def _hand_over(self) -> bool:
        """After a packet: let callers lead (True) if one waited meanwhile (it may have had
        its news already: the next one it waits for, it reads), or keep reading (False)."""
        with self._lock:
            if not self._wanted:
                return False
            self._leader = None
            self._idle_since = time.monotonic()  # leave the link to callers for the grace
            followers = list(self._followers)
        for follower in followers:
            follower.set()
        return True

    # ----------------------------------------------------------- packets

    def _read_packet(self, timeout: float | None) -> tuple[P.Header, bytes | bytearray] | None:
        """The next packet, or None if `timeout` passed first (what came is kept)."""
        header = self._header
        if header is None:
            raw = self._read(P.HEADER_SIZE, timeout)
            if raw is None:
                return None
            header = P.decode_header(raw, max_payload=self._payload_limit())
        if not header.length:
            self._header = None
            return header, b""
        payload = self._read(header.length, timeout)
        self._header = None if payload is not None else header
        return None if payload is None else (header, payload)

    def _read(self, size: int, timeout: float | None) -> bytes | bytearray | None:
        if self._caller_readable is not None:  # a caller's read may have left a part
            return self._caller_readable.read_within(size, timeout)
        return self._transport.read_exactly(size)
