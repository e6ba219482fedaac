"""adbwire: Android's ADB wire protocol in pure Python, with an MCP server on top.

No `adb` binary and no adb server: `AdbClient.connect_tcp("host:5555")` opens one
multiplexed connection and every service (shell, exec, sync, ...) runs over it.
"""

from adbwire.errors import AdbwireError
from adbwire.wire.aio import AsyncAdbClient
from adbwire.wire.client import AdbClient
from adbwire.wire.services.shell import ShellResult
from adbwire.wire.timeouts import Timeouts

__version__ = "0.1.0"

__all__ = ["AdbClient", "AdbwireError", "AsyncAdbClient", "ShellResult", "Timeouts", "__version__"]
