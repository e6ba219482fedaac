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


class UnsupportedError(DeviceCommandError):
    """The device's release or kind lacks what the operation needs (app locales before
    Android 13, dark mode before Android 10, the emulator console on a phone)."""


class AppCrashedError(DeviceCommandError):
    """The app's process died; the message carries the root cause from the crash log."""

    def __init__(self, message: str, *, details: dict[str, object]) -> None:
        super().__init__(message)
        self.details = details


class AppNotRespondingError(AppCrashedError):
    """The app stopped responding (an ANR): the activity manager reported it or shows its
    dialog."""


class LaunchNotVerifiedError(DeviceCommandError):
    """The app was started but its window did not get the focus in time."""

    def __init__(self, message: str, *, details: dict[str, object]) -> None:
        super().__init__(message)
        self.details = details


class TooLargeError(UsageError):
    """A transfer exceeds the size cap (checked before, and enforced while bytes flow)."""


class ScreenTooLargeError(DeviceCommandError):
    """A screen frame (raw header or PNG IHDR) claims more pixels than the cap; it was
    refused before anything was decoded or allocated for it."""

    def __init__(self, what: str, width: int, height: int, max_pixels: int) -> None:
        super().__init__(
            f"{what}: the device reports a {width}x{height} screen ({width * height:,} pixels), "
            f"over the {max_pixels:,}-pixel cap for screenshots; nothing was decoded"
        )
        self.width = width
        self.height = height
        self.max_pixels = max_pixels
