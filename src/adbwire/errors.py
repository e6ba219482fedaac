"""The one exception tree of adbwire.

Every error says whose fault it is and what to do next::

    AdbwireError
    ├── UsageError                  the caller's fault: bad argument, unknown serial, bad path
    ├── KeyFileError                a key file is unreadable or malformed (names the file)
    ├── TransportError              the link to the device (socket, USB) failed
    │   ├── ConnectFailedError      nothing accepted the connection (wrong host/port, refused)
    │   │   ├── DevicePermissionError   the OS denies access to the USB device (udev rule)
    │   │   ├── DeviceBusyError         another process (often an adb server) holds the device
    │   │   └── NoAdbInterfaceError     the device offers no ADB: USB debugging is off
    │   ├── UsbUnavailableError     no usable libusb on this host
    │   └── DisconnectedError       the device went away; every open stream gets this
    │       └── ConnectionClosedError   we closed the connection ourselves (not the device)
    ├── ProtocolError               the bytes on the wire make no sense
    │   ├── LocalProtocolError      we broke the protocol: a bug in adbwire, please report
    │   ├── RemoteProtocolError     the peer broke it: not an ADB device, or a broken one
    │   └── ReplayMismatchError     a replayed session diverged from its recording (names the line)
    ├── AuthError                   authentication did not complete
    │   ├── AuthPendingError        waiting for "Allow USB debugging?" on the device timed out
    │   ├── AuthRejectedError       the device refused every key and will not prompt
    │   └── TlsRejectedError        a wireless-debugging device does not know our key: pair first
    ├── PairingError                wireless-debugging pairing did not complete
    │   └── PairingCodeError        the pairing code did not match the device's
    ├── StreamRefusedError          the device closed an OPEN at once: service not supported
    ├── DeviceCommandError          a command ran on the device and failed
    │   ├── CommandFailedError      a shell command exited non-zero (carries the exit code)
    │   └── SyncFailError           the file-sync service answered FAIL (names the path)
    ├── OutputTooLargeError         the device sent more than a read's byte cap; reading stopped
    ├── OperationCancelledError     the caller cancelled; the operation's streams were closed
    ├── DeviceQueueFullError        too many calls already wait for this device; retry later
    └── AdbTimeoutError             an operation's deadline passed (also a TimeoutError)

`AdbTimeoutError` subclasses the built-in `TimeoutError` so generic code can catch it.
`adbwire.device.errors` refines UsageError and DeviceCommandError for device operations
(not found, already exists, refused, verification failed, app crashed) without new roots.
"""

from __future__ import annotations

from enum import Enum


class Fault(str, Enum):
    """Whose fault an error is; the MCP layer turns this into advice for an agent."""

    CALLER = "caller"
    DEVICE = "device"
    ADBWIRE = "adbwire"
    ENVIRONMENT = "environment"


class AdbwireError(Exception):
    """Base of every error adbwire raises on purpose."""

    fault: Fault = Fault.ENVIRONMENT
    retryable: bool = False


class UsageError(AdbwireError, ValueError):
    """The caller asked for something invalid; nothing was sent to the device."""

    fault = Fault.CALLER


class KeyFileError(AdbwireError):
    """A key file could not be read, parsed or written."""

    fault = Fault.ENVIRONMENT

    def __init__(self, path: object, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class TransportError(AdbwireError):
    """The byte link to the device failed."""

    retryable = True


class ConnectFailedError(TransportError):
    """No connection could be made to the device address."""


class DevicePermissionError(ConnectFailedError):
    """The operating system denies access to the device; retrying will not help."""

    retryable = False


class DeviceBusyError(ConnectFailedError):
    """Another process has claimed the device (most often a running adb server)."""

    retryable = False


class NoAdbInterfaceError(ConnectFailedError):
    """The device is attached but offers no ADB interface (USB debugging is off)."""

    fault = Fault.DEVICE
    retryable = False


class UsbUnavailableError(TransportError):
    """USB cannot be used on this host: no libusb could be loaded or started."""

    retryable = False


class DisconnectedError(TransportError):
    """The device connection ended while something was still using it."""

    fault = Fault.DEVICE


class ConnectionClosedError(DisconnectedError):
    """The connection was closed by this process (`close()`), so it cannot be used."""

    fault = Fault.CALLER
    retryable = False


class ProtocolError(AdbwireError):
    """The ADB protocol was violated."""


class LocalProtocolError(ProtocolError):
    """adbwire tried to do something the protocol forbids (a bug on our side)."""

    fault = Fault.ADBWIRE


class RemoteProtocolError(ProtocolError):
    """The peer sent bytes that are not valid ADB: it is not an ADB device, or it is broken."""

    fault = Fault.DEVICE


class ReplayMismatchError(ProtocolError):
    """The client did something its replayed recording did not: another service, other bytes.

    The message names the stream (its service), the expected and the actual bytes, and the
    fixture file and line. Either the client's behaviour changed (a regression, or a test that
    no longer matches its fixture: record it again) or the fixture is from another session.
    """

    fault = Fault.CALLER

    def __init__(self, message: str, *, fixture: object = None, line: int | None = None) -> None:
        super().__init__(message)
        self.fixture = fixture
        self.line = line


class AuthError(AdbwireError):
    """Authentication with the device did not complete."""

    fault = Fault.DEVICE


class AuthPendingError(AuthError):
    """The device is showing (or should show) the 'Allow USB debugging?' prompt."""

    retryable = True


class AuthRejectedError(AuthError):
    """The device rejected our keys and does not offer a prompt."""


class TlsRejectedError(AuthError):
    """A device that requires TLS (wireless debugging) refused our certificate.

    The device does not trust any of our adb keys: pair with it first (`adbwire pair
    HOST:PORT`, docs/wireless.md), then connect again.
    """


class StreamRefusedError(AdbwireError):
    """The device refused to open a service (it answered OPEN with CLSE)."""

    fault = Fault.DEVICE

    def __init__(self, service: str, reason: str | None = None) -> None:
        why = reason or "not supported here"
        super().__init__(f"the device refused the service {service!r} ({why})")
        self.service = service
        self.reason = reason


class DeviceCommandError(AdbwireError):
    """A request reached the device and the device said it failed."""

    fault = Fault.DEVICE


class CommandFailedError(DeviceCommandError):
    """A shell command exited with a non-zero status."""

    def __init__(self, command: str, exit_code: int, stderr: str = "") -> None:
        detail = f": {stderr.strip()}" if stderr.strip() else ""
        super().__init__(f"{command!r} exited with status {exit_code}{detail}")
        self.command = command
        self.exit_code = exit_code
        self.stderr = stderr


class SyncFailError(DeviceCommandError):
    """The file-sync service refused a request about a path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.device_message = message


class OutputTooLargeError(AdbwireError):
    """The device sent more output than the caller's cap; the stream was closed unread.

    `what` names the read (a command line, a listing), `limit` is the cap in bytes.
    """

    fault = Fault.DEVICE

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(
            f"{what}: the device sent more than {describe_size(limit)} ({limit} bytes), the "
            "cap for this read; the rest was not read"
        )
        self.what = what
        self.limit = limit


def describe_size(size: int) -> str:
    """`size` bytes in the largest binary unit that divides it (4 MiB, 64 KiB, 100 bytes)."""
    for unit, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} bytes"


class OperationCancelledError(AdbwireError):
    """The caller cancelled an operation; the device streams it used were closed."""

    fault = Fault.CALLER


class DeviceQueueFullError(AdbwireError):
    """A device already has as many calls running and waiting as it may; nothing was sent.

    Each device has its own limit (`adbwire.wire.aio.DeviceLane`), so a device that hangs
    fills only its own queue and never delays calls to other devices.
    """

    fault = Fault.CALLER
    retryable = True


class AdbTimeoutError(AdbwireError, TimeoutError):
    """An operation did not finish within its deadline."""

    retryable = True


class PairingError(AdbwireError):
    """Pairing with a device for wireless debugging did not complete (docs/wireless.md).

    The peer broke the pairing protocol, closed the connection, or is not a pairing service.
    """

    fault = Fault.DEVICE


class PairingCodeError(PairingError):
    """The two sides did not share the pairing code: mistyped, or no longer shown."""

    fault = Fault.CALLER
