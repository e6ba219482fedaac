"""sink:N and source:N — adbd's throughput test services (daemon/services.cpp).

`sink:N` swallows N bytes and closes; `source:N` sends N zero bytes and closes. They measure
the transport and the client without any file system or userland in the way.
"""

from __future__ import annotations

from adbwire.testing.services.base import ServiceHandler
from adbwire.testing.stream import DeviceStream
from adbwire.wire.packets import MAX_PAYLOAD

__all__ = ["open_bench"]

_ZEROS = bytes(MAX_PAYLOAD)
"""What source: sends, allocated once (the stream only reads what it is given)."""


def _count(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def open_bench(name: str) -> ServiceHandler | None:
    kind, _sep, count_text = name.partition(":")
    count = _count(count_text)
    if count is None:
        return None
    if kind == "sink":

        def sink(stream: DeviceStream) -> None:
            stream.read_into(count, _discard)

        return sink

    def source(stream: DeviceStream) -> None:
        block = memoryview(_ZEROS)[: stream.max_payload]
        remaining = count
        while remaining:
            size = min(remaining, len(block))
            stream.write(block[:size])
            remaining -= size

    return source


def _discard(_piece: memoryview) -> None:
    pass
