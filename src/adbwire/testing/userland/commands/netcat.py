"""Toybox nc (netcat), on the device's loopback — which is the host's loopback.

The simulated device's `localhost` is the machine's 127.0.0.1 (the `tcp:` forward service
connects there too), so `nc -l -p PORT` on the device is reachable through
`adb forward tcp:N tcp:PORT`, and `nc localhost PORT` reaches a listener on the host. Other
hosts are unreachable: the simulator never leaves the machine.

`nc [-l] [-p PORT] [-w SECS] [-q SECS] [HOST] [PORT]`: with -l, wait for one connection;
then copy stdin to the peer and the peer to stdout until the peer closes (stdin's end
shuts down the sending side only).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Final

from adbwire.testing.userland.shell.interp import CommandFn, Invocation

LOOPBACK: Final = ("localhost", "127.0.0.1", "::1", "ip6-localhost")
POLL_SECONDS: Final = 0.1
CHUNK: Final = 64 * 1024
DEFAULT_WAIT: Final = 3600.0


class _Usage(Exception):
    pass


def _options(args: list[str]) -> tuple[bool, int | None, float, list[str]]:
    listen, port, wait = False, None, DEFAULT_WAIT
    operands: list[str] = []
    while args:
        arg = args.pop(0)
        if arg in ("-l", "-L"):
            listen = True
        elif arg in ("-p", "-w", "-q", "-s") and args:
            value = args.pop(0)
            if arg == "-p":
                port = _port(value)
            elif arg == "-w":
                wait = float(value) if value.replace(".", "", 1).isdigit() else DEFAULT_WAIT
        elif arg in ("-n", "-t", "-v", "-4", "-6", "-u") or arg.startswith("-q"):
            if arg == "-u":
                raise _Usage("UDP is not simulated")
        elif arg.startswith("-") and len(arg) > 1:
            raise _Usage(f"Unknown option '{arg[1:]}' (see \"nc --help\")")
        else:
            operands.append(arg)
    return listen, port, wait, operands


def _port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise _Usage(f"bad port '{text}'")
    return int(text)


def netcat(inv: Invocation) -> int:
    try:
        listen, port, wait, operands = _options(list(inv.args))
        if listen:
            if port is None and operands:
                port = _port(operands[-1])
            if port is None:
                raise _Usage("-l needs -p PORT")
            peer = _accept(inv, port, wait)
        else:
            if len(operands) != 2:
                raise _Usage("Need 2 arguments")
            host, port_text = operands
            if host not in LOOPBACK:
                return inv.fail("connect: Network is unreachable")
            peer = _connect(inv, _port(port_text), wait)
    except _Usage as exc:
        return inv.fail(str(exc))
    except OSError as exc:
        return inv.fail(f"{'bind' if listen else 'connect'}: {exc.strerror or exc}")
    if peer is None:
        return 1
    with peer:
        _relay(inv, peer)
    return 0


def _accept(inv: Invocation, port: int, wait: float) -> socket.socket | None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen(1)
        server.settimeout(POLL_SECONDS)
        waited = 0.0
        while not inv.cancelled and waited < wait:
            try:
                peer, _address = server.accept()
            except TimeoutError:
                waited += POLL_SECONDS
                continue
            return peer
    if not inv.cancelled:
        inv.fail("Timeout")
    return None


def _connect(inv: Invocation, port: int, wait: float) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=min(wait, 10.0))


def _relay(inv: Invocation, peer: socket.socket) -> None:
    peer.settimeout(POLL_SECONDS)

    def stdin_to_peer() -> None:
        while True:
            data = inv.streams.stdin.read(CHUNK)
            if not data:
                break
            try:
                peer.sendall(data)
            except OSError:
                return
        with contextlib.suppress(OSError):
            peer.shutdown(socket.SHUT_WR)

    sender = threading.Thread(target=stdin_to_peer, name="device nc stdin", daemon=True)
    sender.start()
    while not inv.cancelled:
        try:
            data = peer.recv(CHUNK)
        except TimeoutError:
            continue
        except OSError:
            break
        if not data:
            break
        inv.out(data)


COMMANDS: dict[str, CommandFn] = {"nc": netcat, "netcat": netcat}
