"""Errors of device operations, as subclasses of the one tree in ``adbwire.errors``.

They only refine the existing branches (catching the base still works) so that the MCP layer
can give each its own stable error code.
"""

from __future__ import annotations

from adbwire.errors import DeviceCommandError, UsageError


class NotFoundError(UsageError):
    """A package, activity, file or forward the caller named does not exist on the device."""


class AlreadyExistsError(UsageError):
    """The target exists and the operation would replace it."""


class RefusedError(UsageError):
    """A safety rule refuses the request (catastrophic command, control property)."""


class VerificationError(DeviceCommandError):
    """The command ran, but reading the device back shows it did not take effect."""


class AppCrashedError(DeviceCommandError):
    """The app's process died; the message carries the root cause from the crash log."""

    def __init__(self, message: str, *, details: dict[str, object]) -> None:
        super().__init__(message)
        self.details = details


class LaunchNotVerifiedError(DeviceCommandError):
    """The app was started but its window did not get the focus in time."""

    def __init__(self, message: str, *, details: dict[str, object]) -> None:
        super().__init__(message)
        self.details = details


class TooLargeError(UsageError):
    """A transfer exceeds the size cap (checked before, and enforced while bytes flow)."""
