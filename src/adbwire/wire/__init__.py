"""Bytes, packets and streams: the ADB protocol with no knowledge of apps or MCP.

The public API is below (`__all__`); each name is imported when first used, so importing
one module of this package does not load the others (USB, recording, pairing stay unloaded
until asked for). Everything else in `wire/` is internal and may change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adbwire._lazy_exports import lazy_exports

if TYPE_CHECKING:
    from adbwire.wire.aio import AsyncAdbClient
    from adbwire.wire.client import AdbClient, connect_tcp_many
    from adbwire.wire.connection import Connection
    from adbwire.wire.keys import AdbKey, generate_key, load_key, load_keys
    from adbwire.wire.pairing.client import PairingResult, pair
    from adbwire.wire.recording import RecordingTransport, ReplayTransport
    from adbwire.wire.services.control import AdbdRestart, RebootMode
    from adbwire.wire.services.forward import Forward, PortForwarder
    from adbwire.wire.services.install_result import (
        InstallMethod,
        InstallOptions,
        InstallResult,
        UninstallResult,
    )
    from adbwire.wire.services.shell import ShellProcess, ShellResult
    from adbwire.wire.services.sync import DirEntry, RemoteStat, SyncSession, TransferResult
    from adbwire.wire.stream import Stream
    from adbwire.wire.timeouts import Timeouts
    from adbwire.wire.transport import TcpTransport, Transport

__all__ = [
    "AdbClient",
    "AdbKey",
    "AdbdRestart",
    "AsyncAdbClient",
    "Connection",
    "DirEntry",
    "Forward",
    "InstallMethod",
    "InstallOptions",
    "InstallResult",
    "PairingResult",
    "PortForwarder",
    "RebootMode",
    "RecordingTransport",
    "RemoteStat",
    "ReplayTransport",
    "ShellProcess",
    "ShellResult",
    "Stream",
    "SyncSession",
    "TcpTransport",
    "Timeouts",
    "TransferResult",
    "Transport",
    "UninstallResult",
    "connect_tcp_many",
    "generate_key",
    "load_key",
    "load_keys",
    "pair",
]

_HOME_OF = {
    "AdbClient": "adbwire.wire.client",
    "AdbKey": "adbwire.wire.keys",
    "AdbdRestart": "adbwire.wire.services.control",
    "AsyncAdbClient": "adbwire.wire.aio",
    "Connection": "adbwire.wire.connection",
    "DirEntry": "adbwire.wire.services.sync",
    "Forward": "adbwire.wire.services.forward",
    "InstallMethod": "adbwire.wire.services.install_result",
    "InstallOptions": "adbwire.wire.services.install_result",
    "InstallResult": "adbwire.wire.services.install_result",
    "PairingResult": "adbwire.wire.pairing.client",
    "PortForwarder": "adbwire.wire.services.forward",
    "RebootMode": "adbwire.wire.services.control",
    "RecordingTransport": "adbwire.wire.recording",
    "RemoteStat": "adbwire.wire.services.sync",
    "ReplayTransport": "adbwire.wire.recording",
    "ShellProcess": "adbwire.wire.services.shell",
    "ShellResult": "adbwire.wire.services.shell",
    "Stream": "adbwire.wire.stream",
    "SyncSession": "adbwire.wire.services.sync",
    "TcpTransport": "adbwire.wire.transport",
    "Timeouts": "adbwire.wire.timeouts",
    "TransferResult": "adbwire.wire.services.sync",
    "Transport": "adbwire.wire.transport",
    "UninstallResult": "adbwire.wire.services.install_result",
    "connect_tcp_many": "adbwire.wire.client",
    "generate_key": "adbwire.wire.keys",
    "load_key": "adbwire.wire.keys",
    "load_keys": "adbwire.wire.keys",
    "pair": "adbwire.wire.pairing.client",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME_OF, globals())
