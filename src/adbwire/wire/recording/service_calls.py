"""`call` lines for the services beyond shell and exec: sync, install, forward, control.

Everything a call needs to be repeated exactly is in its arguments (file contents, mtimes,
the APK's bytes), so a replay sends the very bytes the recording holds.
"""

from __future__ import annotations

import io
import socket
import tempfile
from pathlib import Path
from typing import Any

from adbwire.wire.client import AdbClient
from adbwire.wire.recording.calls import as_json_bytes, from_json_bytes, register
from adbwire.wire.services import control, install, sync
from adbwire.wire.services.forward import PortForwarder
from adbwire.wire.services.install_result import InstallMethod

EXCHANGE_TIMEOUT = 10.0


def _stat_json(found: sync.RemoteStat) -> dict[str, Any]:
    return {"mode": found.mode, "size": found.size, "mtime": found.mtime}


@register("stat")
def _stat(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    return _stat_json(sync.stat(client.connection, args["path"]))


@register("list_dir")
def _list_dir(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    entries = sync.list_dir(client.connection, args["path"])
    return {"entries": [[entry.name, _stat_json(entry.stat)] for entry in entries]}


@register("push_bytes")
def _push_bytes(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    data = from_json_bytes(args["data"])
    count = sync.push_stream(
        client.connection,
        io.BytesIO(data),
        args["remote"],
        mode=args.get("mode", 0o644),
        mtime=args["mtime"],
        size=len(data),
    )
    return {"bytes": count}


@register("pull_bytes")
def _pull_bytes(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    sink = io.BytesIO()
    sync.pull_stream(client.connection, args["remote"], sink)
    return {"data": as_json_bytes(sink.getvalue())}


@register("install")
def _install(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="adbwire-call-") as folder:
        apk = Path(folder) / args.get("name", "app.apk")
        apk.write_bytes(from_json_bytes(args["apk"]))
        method = InstallMethod(args["method"]) if "method" in args else None
        result = install.install(client.connection, apk, method=method)
    return {"ok": result.ok, "code": result.code, "package": result.package}


@register("uninstall")
def _uninstall(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    result = install.uninstall(client.connection, args["package"])
    return {"ok": result.ok}


@register("forward_exchange")
def _forward_exchange(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    """Forward a free local port to `remote`, send `send` through it, read until the far
    end closes (ADB streams have no half-close: the sender does not shut down first)."""
    with PortForwarder(client.connection) as forwarder:
        forward = forwarder.forward("tcp:0", args["remote"])
        with socket.create_connection(("127.0.0.1", forward.port), EXCHANGE_TIMEOUT) as peer:
            peer.sendall(from_json_bytes(args["send"]))
            received = bytearray()
            while chunk := peer.recv(65536):
                received += chunk
    return {"received": as_json_bytes(bytes(received))}


@register("reboot")
def _reboot(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    return {"text": control.reboot(client.connection, args.get("mode", ""))}


@register("root")
def _root(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    done = (
        control.unroot(client.connection) if args.get("unroot") else control.root(client.connection)
    )
    return {"message": done.message, "restarted": done.restarted}
