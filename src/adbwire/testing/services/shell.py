"""shell:, shell,v2,raw:, shell,v2,pty:, shell,v2: and exec: — commands run by the userland.

As adbd's ShellService parses it: `shell[,arg,...]:[command]`; args are raw, pty, v2 and
TERM=…, anything else is ignored; no command means an interactive pty shell, a command means
raw. Without the shell protocol (v1, exec:) stderr goes into the same stream as stdout and
no exit status is sent; with it, stdout/stderr are apart and an exit packet ends the stream.
"""

from __future__ import annotations

import logging

from adbwire.testing.device_state import ProcessIO, UserlandLike
from adbwire.testing.services.base import ServiceContext, ServiceHandler
from adbwire.testing.services.process_io import RawProcessIO, ShellProtocolIO
from adbwire.testing.stream import DeviceStream, StreamClosed

__all__ = ["open_exec", "open_shell", "run_command"]

log = logging.getLogger("adbwire.testing")

START_FAILURE_STATUS = 126
"""What adbd reports when it cannot start the process (ReportError in shell_service.cpp)."""


def run_command(userland: UserlandLike, command: str, io: ProcessIO, *, pty: bool) -> int:
    """Run a command line in the userland; a userland bug becomes an error on stderr."""
    try:
        return userland.run(command, io, pty=pty) & 0xFF
    except StreamClosed:
        raise
    except Exception as error:
        log.exception("simulated userland failed running %r", command)
        io.write_stderr(f"error: simulated userland failed: {error!r}\n".encode())
        return START_FAILURE_STATUS


def open_shell(spec: str, context: ServiceContext) -> ServiceHandler | None:
    """`spec` is what follows "shell": ":cmd", ",v2,raw:cmd", ",v2,pty:" …"""
    args, colon, command = spec.partition(":")
    if not colon:
        return None
    pty = not command
    shell_protocol = False
    for arg in args.split(","):
        if arg == "raw":
            pty = False
        elif arg == "pty":
            pty = True
        elif arg == "v2" and "shell_v2" in context.state.options.features:
            shell_protocol = True
    userland = context.state.userland

    def serve(stream: DeviceStream) -> None:
        if shell_protocol:
            io = ShellProtocolIO(stream, pty=pty)
            status = run_command(userland, command, io, pty=pty)
            if not stream.cancelled:
                io.exit_and_close(status)
        else:
            run_command(userland, command, RawProcessIO(stream, pty=pty), pty=pty)

    return serve


def open_exec(command: str, context: ServiceContext) -> ServiceHandler:
    userland = context.state.userland

    def serve(stream: DeviceStream) -> None:
        run_command(userland, command, RawProcessIO(stream), pty=False)

    return serve
