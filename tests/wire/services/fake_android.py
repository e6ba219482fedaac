"""What the fake adbd's services do: a package manager that takes streamed and pushed
installs, a tiny file store behind `sync:` SEND, a shell that knows the few commands
these tests send, adbd's restart services, and `tcp:`/`localabstract:` to loopback ports.
"""

from __future__ import annotations

import contextlib
import hashlib
import shlex
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from adbwire.wire.services.shell_protocol import ShellPacketId, encode
from tests.wire.services.fake_adbd import (
    SILENT,
    DeviceConnection,
    DeviceStream,
    FakeAdbd,
    ServiceHandler,
    StreamGone,
)

ANDROID_11 = frozenset({"shell_v2", "cmd", "abb_exec", "stat_v2", "remount_shell"})
ANDROID_8 = frozenset({"shell_v2", "cmd"})
ANDROID_6 = frozenset({"shell_v2"})


@dataclass
class InstallCall:
    via: str
    flags: list[str]
    size: int
    sha256: str


@dataclass
class FakeAndroid:
    device: FakeAdbd
    root: bool = False
    debuggable: bool = True
    installs: list[InstallCall] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    shell_commands: list[str] = field(default_factory=list)
    answer: Callable[[bytes, list[str]], str] = lambda apk, flags: "Success"
    uninstall_answer: str = "Success"
    remount_status: int = 0
    abstract_sockets: dict[str, int] = field(default_factory=dict)
    restarts: threading.Event = field(default_factory=threading.Event)
    refuse_reconnects: int = 0
    reject_after: int | None = None
    """Answer a streamed install with INSTALL_FAILED_INVALID_APK after this many bytes."""
    drop_after: int | None = None
    drop_on_restart: bool = True
    """False: adbd says it restarts but the connection stays up (a slow restart)."""
    """Cut the connection after this many bytes of a streamed install."""
    """How many connection attempts after a restart are turned away (adbd still down)."""

    def __post_init__(self) -> None:
        d = self.device
        d.serve("abb_exec:", self._abb_exec)
        d.serve("exec:", self._exec)
        d.serve("shell,v2:", self._shell)  # what adb itself opens for a command
        d.serve("shell,v2,raw:", self._shell)
        d.serve("sync:", lambda _rest, _conn: self._sync)
        d.serve("tcp:", lambda rest, _conn: _relay_to(int(rest)) if rest.isdigit() else None)
        d.serve("localabstract:", self._abstract)
        d.serve("localreserved:", lambda _rest, _conn: SILENT)  # never answers the OPEN
        for name in ("root:", "unroot:", "tcpip:", "usb:", "reboot:", "remount:"):
            d.serve(name, self._adbd_service(name))

    # ----------------------------------------------------------- package manager

    def _install_handler(self, via: str, args: list[str]) -> ServiceHandler | None:
        if "-S" not in args:
            return None
        at = args.index("-S")
        size = int(args[at + 1])
        flags = args[:at] + args[at + 2 :]

        def serve(stream: DeviceStream) -> None:
            if self.reject_after is not None:
                stream.read_exactly(min(size, self.reject_after))
                stream.write(b"Failure [INSTALL_FAILED_INVALID_APK: truncated]\n")
                return
            if self.drop_after is not None:
                stream.read_exactly(min(size, self.drop_after))
                stream.conn.drop()
                return
            apk = stream.read_exactly(size)
            self.installs.append(InstallCall(via, flags, size, hashlib.sha256(apk).hexdigest()))
            stream.write((self.answer(apk, flags) + "\n").encode())

        return serve

    def _abb_exec(self, rest: str, _conn: DeviceConnection) -> ServiceHandler | None:
        args = rest.split("\0")
        if args[:2] != ["package", "install"]:
            return None
        return self._install_handler("abb_exec", args[2:])

    def _exec(self, rest: str, _conn: DeviceConnection) -> ServiceHandler | None:
        args = shlex.split(rest)
        if args[:3] == ["cmd", "package", "install"]:
            return self._install_handler("cmd", args[3:])
        return None

    # ----------------------------------------------------------- shell

    def _shell(self, command: str, _conn: DeviceConnection) -> ServiceHandler:
        self.shell_commands.append(command)
        args = shlex.split(command)
        out, status = self._run(args)

        def serve(stream: DeviceStream) -> None:
            if out:
                stream.write(encode(ShellPacketId.STDOUT, out.encode()))
            stream.write(encode(ShellPacketId.EXIT, bytes([status])))

        return serve

    def _run(self, args: list[str]) -> tuple[str, int]:
        if args == ["id", "-u"]:
            return ("0\n" if self.root else "2000\n"), 0
        if args[:2] == ["pm", "install"]:
            path = args[-1]
            apk = self.files.get(path)
            if apk is None:
                return f"Failure [INSTALL_FAILED_INVALID_URI: no file {path}]\n", 1
            digest = hashlib.sha256(apk).hexdigest()
            self.installs.append(InstallCall("pm", args[2:-1], len(apk), digest))
            return f"\tpkg: {path}\n{self.answer(apk, args[2:-1])}\n", 0
        if args[:2] == ["rm", "-f"]:
            for path in args[2:]:
                self.files.pop(path, None)
            return "", 0
        if args[1:3] == ["package", "uninstall"] or args[:2] == ["pm", "uninstall"]:
            return self.uninstall_answer + "\n", 0
        if args[:1] == ["remount"]:
            text = "remount succeeded\n" if self.remount_status == 0 else "Not running as root.\n"
            return text, self.remount_status
        return f"/system/bin/sh: {args[0]}: not found\n", 127

    # ----------------------------------------------------------- sync (SEND only)

    def _sync(self, stream: DeviceStream) -> None:
        while True:
            header = stream.read_exactly(8)
            request, length = header[:4], struct.unpack("<I", header[4:])[0]
            if request == b"QUIT":
                return
            if request != b"SEND":
                stream.write(b"FAIL" + struct.pack("<I", 11) + b"unsupported")
                return
            path = stream.read_exactly(length).decode().rsplit(",", 1)[0]
            body = bytearray()
            while True:
                chunk_header = stream.read_exactly(8)
                kind = chunk_header[:4]
                size = struct.unpack("<I", chunk_header[4:])[0]
                if kind == b"DONE":
                    break
                body += stream.read_exactly(size)
            self.files[path] = bytes(body)
            stream.write(b"OKAY" + struct.pack("<I", 0))

    # ----------------------------------------------------------- adbd services

    def _adbd_service(self, name: str) -> Callable[[str, DeviceConnection], ServiceHandler]:
        def factory(rest: str, conn: DeviceConnection) -> ServiceHandler:
            text, restart = self._adbd_answer(name, rest)

            def serve(stream: DeviceStream) -> None:
                if text:
                    stream.write(text.encode())
                if restart:
                    stream.close()
                    restart()
                    self.restarts.set()
                    if self.drop_on_restart:
                        conn.drop()

            return serve

        return factory

    def _adbd_answer(self, name: str, rest: str) -> tuple[str, Callable[[], None] | None]:
        if name == "root:":
            if self.root:
                return "adbd is already running as root\n", None
            if not self.debuggable:
                return "adbd cannot run as root in production builds\n", None
            return "restarting adbd as root\n", lambda: self._restart(root=True)
        if name == "unroot:":
            if not self.root:
                return "adbd not running as root\n", None
            return "restarting adbd as non root\n", lambda: self._restart(root=False)
        if name == "tcpip:":
            return f"restarting in TCP mode port: {rest}\n", lambda: None
        if name == "usb:":
            return "restarting in USB mode\n", lambda: None
        if name == "reboot:":
            return "", lambda: None
        return "remount succeeded\n", None

    def _restart(self, *, root: bool) -> None:
        self.root = root
        if self.refuse_reconnects:
            self.device.turn_away(self.refuse_reconnects)

    # ----------------------------------------------------------- sockets

    def _abstract(self, name: str, _conn: DeviceConnection) -> ServiceHandler | None:
        port = self.abstract_sockets.get(name)
        return None if port is None else _relay_to(port)


def _relay_to(port: int) -> ServiceHandler | None:
    """Connect now (a closed port refuses the OPEN), then relay both ways."""
    try:
        target = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        return None
    target.settimeout(None)

    def serve(stream: DeviceStream) -> None:
        def pump_back() -> None:
            with contextlib.suppress(OSError, StreamGone, TimeoutError):
                while data := target.recv(256 * 1024):
                    stream.write(data)
            stream.close()

        back = threading.Thread(target=pump_back, daemon=True)
        back.start()
        try:
            while data := stream.read_idle():
                target.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                target.shutdown(socket.SHUT_RDWR)
            back.join(10)
            target.close()

    return serve
