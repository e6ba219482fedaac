"""adbwire: Android's ADB wire protocol in pure Python, with an MCP server on top.

No `adb` binary and no adb server: `AdbClient.connect_tcp("host:5555")` opens one
multiplexed connection and every service (shell, exec, sync, ...) runs over it.

The names below are imported when first used, so `import adbwire` (and the pytest plugin,
which pytest loads in every run) costs next to nothing until a client is made.
"""

from __future__ import annotations

from adbwire._lazy_exports import lazy_exports

TYPE_CHECKING = False  # typing itself costs `adbwire --version` ~10 ms (#20); mypy knows this
if TYPE_CHECKING:
    from adbwire.errors import AdbwireError
    from adbwire.wire.aio import AsyncAdbClient
    from adbwire.wire.client import AdbClient
    from adbwire.wire.pairing.client import PairingResult, pair
    from adbwire.wire.services.shell import ShellResult
    from adbwire.wire.timeouts import Timeouts

__version__ = "0.1.0"

__all__ = [
    "AdbClient",
    "AdbwireError",
    "AsyncAdbClient",
    "PairingResult",
    "ShellResult",
    "Timeouts",
    "__version__",
    "pair",
]

_HOME_OF = {
    "AdbClient": "adbwire.wire.client",
    "AdbwireError": "adbwire.errors",
    "AsyncAdbClient": "adbwire.wire.aio",
    "PairingResult": "adbwire.wire.pairing.client",
    "ShellResult": "adbwire.wire.services.shell",
    "Timeouts": "adbwire.wire.timeouts",
    "pair": "adbwire.wire.pairing.client",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOME_OF, globals())
