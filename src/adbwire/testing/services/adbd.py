"""adbd's own services: reboot:, root:, unroot:, tcpip:, usb:, reconnect.

Texts are adbd's (daemon/restart_service.cpp). Whenever adbd restarts (root, unroot, tcpip,
usb, reboot), the answer is sent and then the connection drops, as on a real device; the
device's next connections see the new state.
"""

from __future__ import annotations

from collections.abc import Callable

from adbwire.testing.services.base import ServiceContext, ServiceHandler
from adbwire.testing.services.shell import open_exec
from adbwire.testing.stream import DeviceStream

__all__ = ["open_adbd_service"]


def _answer(
    text: str, context: ServiceContext, *, then: Callable[[], None] | None = None
) -> ServiceHandler:
    """Write `text`; if `then` is given, run it and drop the connection (adbd restarts).

    `then` runs before the stream closes: a client such as `adb reboot` exits at the close,
    and whoever checks the device next must already see the change."""

    def serve(stream: DeviceStream) -> None:
        if text:
            stream.write(text.encode())
        if then is not None:
            then()
            stream.close()
            if not context.state.faults.keep_link_on_restart:
                context.kick()

    return serve


def _nothing() -> None:
    pass


def open_adbd_service(name: str, context: ServiceContext) -> ServiceHandler | None:
    state = context.state
    if name.startswith("reboot:"):
        mode = name[len("reboot:") :]
        return _answer("", context, then=lambda: state.note_reboot(mode))
    if name.startswith("root:"):
        if state.root:
            return _answer("adbd is already running as root\n", context)
        if not state.options.debuggable:
            return _answer("adbd cannot run as root in production builds\n", context)
        return _answer("restarting adbd as root\n", context, then=lambda: state.set_root(True))
    if name.startswith("unroot:"):
        if not state.root:
            return _answer("adbd not running as root\n", context)
        return _answer("restarting adbd as non root\n", context, then=lambda: state.set_root(False))
    if name.startswith("tcpip:"):
        digits = name[len("tcpip:") :]
        try:
            port = int(digits)
        except ValueError:
            return None  # sscanf("%d") failed: adbd refuses the service
        if port <= 0:
            return _answer(f"invalid port {port}\n", context)
        return _answer(f"restarting in TCP mode port: {port}\n", context, then=_nothing)
    if name.startswith("usb:"):
        return _answer("restarting in USB mode\n", context, then=_nothing)
    if name.startswith("remount:"):
        # Devices without remount_shell: adbd runs the program with the shell protocol off.
        argument = name[len("remount:") :]
        return open_exec(f"remount {argument}".rstrip(), context)
    if name == "reconnect":
        return _answer("done", context, then=_nothing)
    return None
