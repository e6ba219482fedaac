"""System "isn't responding" (ANR) and "keeps stopping" (crash) dialogs in a UI tree."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adbwire.device.parsers.ui_xml import UiElement

# Buttons of the framework's app-error dialogs (frameworks/base res: aerr_*).
_ANR_ONLY = "android:id/aerr_wait"
_ERROR_BUTTONS = frozenset(
    {
        "android:id/aerr_wait",
        "android:id/aerr_close",
        "android:id/aerr_restart",
        "android:id/aerr_report",
        "android:id/aerr_app_info",
        "android:id/aerr_mute",
    }
)
_TITLE_ID = "android:id/alertTitle"
# English titles; on other locales ``subject`` stays None and the buttons still tell the kind.
_TITLE_SUBJECT = re.compile(
    r"^Unfortunately, (?P<old>.+?) has stopped\.?$"
    r"|^(?:Process )?(?P<subject>.+?) (?:isn['\u2019]t responding|is not responding"
    r"|keeps stopping|has stopped)\.?$"
)


@dataclass(frozen=True)
class SystemDialog:
    """An app-error dialog shown by the system over the screen.

    ``subject`` is the app label or process the title names (``system`` in "Process system
    isn't responding"); ``buttons`` maps the button ids (``aerr_wait``...) to element ids.
    """

    kind: Literal["anr", "crash"]
    title: str | None
    subject: str | None
    buttons: tuple[tuple[str, str], ...]


def detect_system_dialog(elements: Sequence[UiElement]) -> SystemDialog | None:
    """The ANR or crash dialog on screen, or ``None`` when there is none."""
    buttons = [
        (e.resource_id.rsplit("/", 1)[-1], e.id)
        for e in elements
        if e.package == "android" and e.resource_id in _ERROR_BUTTONS
    ]
    if not buttons:
        return None
    kind: Literal["anr", "crash"] = (
        "anr" if any(e.resource_id == _ANR_ONLY for e in elements) else "crash"
    )
    title = next(
        (e.text for e in elements if e.package == "android" and e.resource_id == _TITLE_ID),
        None,
    )
    subject: str | None = None
    if title:
        match = _TITLE_SUBJECT.match(title.strip())
        if match is not None:
            subject = match.group("subject") or match.group("old")
    return SystemDialog(kind, title or None, subject, tuple(buttons))
