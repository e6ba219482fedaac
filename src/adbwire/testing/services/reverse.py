"""reverse:COMMAND — adbd's side of `adb reverse` (adb.cpp handle_forward_request).

`list-forward` answers a length-prefixed listing (no OKAY: on the device only the status
of a change is sent); `forward:[norebind:]LOCAL;REMOTE` and `killforward:LOCAL` and
`killforward-all` answer OKAY (a tcp:0 forward then the port it got, length-prefixed) or
FAIL with adbd's message. The listeners themselves are `reverse_listeners.ReverseTable`.
"""

from __future__ import annotations

from adbwire.testing.reverse_listeners import ListenerError
from adbwire.testing.services.base import ServiceContext, ServiceHandler
from adbwire.testing.stream import DeviceStream

__all__ = ["open_reverse"]


def open_reverse(command: str, context: ServiceContext) -> ServiceHandler | None:
    link = context.link
    if link is None:
        return None
    table = context.state.reverses

    def serve(stream: DeviceStream) -> None:
        if command == "list-forward":
            stream.write(_text(table.listing()))
            return
        if command == "killforward-all":
            table.remove_all()
            stream.write(b"OKAY")
            return
        try:
            if command.startswith("killforward:"):
                local = command[len("killforward:") :]
                if not local or ";" in local:
                    raise ListenerError(f"bad killforward: {local}")
                table.remove(local)
                stream.write(b"OKAY")
            elif command.startswith("forward:"):
                spec = command[len("forward:") :]
                rebind = not spec.startswith("norebind:")
                spec = spec if rebind else spec[len("norebind:") :]
                pieces = spec.split(";")
                if len(pieces) != 2 or not all(pieces) or pieces[1].startswith("*"):
                    raise ListenerError(f"bad forward: {spec}")
                port = table.install(pieces[0], pieces[1], link, rebind=rebind)
                stream.write(b"OKAY" + (_text(str(port)) if port else b""))
            else:
                raise ListenerError("not a reverse forwarding command")
        except ListenerError as error:
            stream.write(b"FAIL" + _text(str(error)))

    return serve


def _text(text: str) -> bytes:
    data = text.encode()
    return b"%04x" % len(data) + data
