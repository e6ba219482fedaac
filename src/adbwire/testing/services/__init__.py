"""Device services by name, as adbd's daemon_service_to_fd picks them.

`open_service` returns the handler that serves the stream, or None to refuse it (the OPEN is
answered with CLSE). Work that decides whether the service exists (connecting a tcp: target)
happens here, before the OKAY, exactly as adbd does it.
"""

from __future__ import annotations

from adbwire.testing.services import (
    adbd,
    bench,
    forward,
    framebuffer,
    install,
    reverse,
    shell,
    sync,
)
from adbwire.testing.services.base import ServiceContext, ServiceHandler

__all__ = ["ServiceContext", "ServiceHandler", "open_service"]


def open_service(name: str, context: ServiceContext) -> ServiceHandler | None:
    if name.startswith("host"):
        return None  # host services are the adb server's business, never a device's
    if name.startswith("shell"):
        return shell.open_shell(name[len("shell") :], context)
    if name.startswith("exec:"):
        command = name[len("exec:") :]
        return install.open_exec_install(command, context) or shell.open_exec(command, context)
    if name.startswith("abb_exec:"):
        return install.open_abb_exec(name[len("abb_exec:") :], context)
    if name.startswith("abb:"):
        return install.open_abb(name[len("abb:") :], context)
    if name.startswith("sync:"):
        return sync.open_sync(context)
    if name.startswith("tcp:"):
        return forward.open_tcp(name[len("tcp:") :])
    if name.startswith(("sink:", "source:")):
        return bench.open_bench(name)
    if name.startswith("reverse:"):
        return reverse.open_reverse(name[len("reverse:") :], context)
    if name == "framebuffer:":
        return framebuffer.open_framebuffer(context)
    return adbd.open_adbd_service(name, context)
