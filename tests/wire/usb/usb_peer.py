"""A scripted ADB device behind the fake USB endpoints (the USB twin of fake_peer.py).

The device reads whole USB transfers, as a gadget that relies on transfer boundaries does:
a header transfer must be exactly 24 bytes and a payload transfer exactly the announced
length, so a missing zero-length packet shows up as a glued or unfinished transfer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from adbwire.wire import packets as P
from adbwire.wire.banner import Banner

from ..fake_peer import DEVICE_BANNER
from .fake_usb import FakeDevice


class UsbPeer:
    def __init__(self, device: FakeDevice, timeout: float = 5.0) -> None:
        self.device = device
        self.timeout = timeout

    def recv_packet(self) -> P.Packet:
        header = self.device.read_transfer(self.timeout)
        assert len(header) == P.HEADER_SIZE, f"header transfer of {len(header)} bytes"
        decoded = P.decode_header(header, max_payload=P.MAX_PAYLOAD)
        payload = self.device.read_transfer(self.timeout) if decoded.length else b""
        assert len(payload) == decoded.length, (
            f"{decoded.name} announced {decoded.length} bytes, the transfer held {len(payload)}"
        )
        return P.Packet(decoded.command, decoded.arg0, decoded.arg1, payload)

    def send(self, packet: P.Packet, *, coalesce: bool = False) -> None:
        """Send header and payload as two transfers (or as one, when `coalesce`)."""
        header = packet.header(with_checksum=False)
        if coalesce:
            self.device.send_transfer(header + bytes(packet.payload))
            return
        self.device.send_transfer(header)
        if packet.payload:
            self.device.send_transfer(bytes(packet.payload))

    def accept_cnxn(self, banner: Banner = DEVICE_BANNER, **options: int) -> P.Packet:
        hello = self.recv_packet()
        assert hello.command == P.A_CNXN, hello
        version = options.get("version", P.VERSION_SKIP_CHECKSUM)
        max_payload = options.get("max_payload", P.MAX_PAYLOAD)
        self.send(P.Packet(P.A_CNXN, version, max_payload, banner.encode()))
        return hello


UsbScript = Callable[[UsbPeer], object]


@contextmanager
def scripted_device(device: FakeDevice, script: UsbScript) -> Iterator[threading.Event]:
    """Run `script` as the device in a thread; its failures are raised at the end."""
    done = threading.Event()
    errors: list[BaseException] = []

    def serve() -> None:
        try:
            script(UsbPeer(device))
        except EOFError:
            pass  # the host closed the connection: the script's work is over
        except BaseException as exc:
            errors.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield done
    finally:
        thread.join(timeout=10)
    if errors:
        raise errors[0]
