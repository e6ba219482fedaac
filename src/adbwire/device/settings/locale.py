"""Per-app language (Android 13+): ``cmd locale set-app-locales`` / ``get-app-locales``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device import commands, validate
from adbwire.device.errors import UnsupportedError
from adbwire.device.parsers.device_settings import parse_app_locales
from adbwire.device.sdk import sdk_level
from adbwire.device.settings.ledger import Noted
from adbwire.device.settings.values import wait_for
from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient

APP_LOCALE_SDK = 33
VERIFY_SECONDS = 5.0
_TAG = re.compile(r"^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8}){0,4}$")


def check_locale(tag: str) -> str:
    """A BCP 47 language tag such as ``fr``, ``fr-FR`` or ``zh-Hant-TW``; "" means the system's."""
    if tag and not _TAG.match(tag):
        raise UsageError(f"{tag[:40]!r} is not a language tag like fr-FR")
    return tag


def _require(client: AdbClient) -> None:
    sdk = sdk_level(client)
    if sdk is None or sdk < APP_LOCALE_SDK:
        shown = "an unknown release" if sdk is None else f"API {sdk}"
        raise UnsupportedError(
            f"per-app languages need Android 13 (API 33); this device is {shown}"
        )


def app_locales(client: AdbClient, package: str) -> tuple[str, ...]:
    """The app's own languages (empty: it follows the system)."""
    argv = ["cmd", "locale", "get-app-locales", validate.package_name(package), "--user", "current"]
    return parse_app_locales(commands.text(client, argv))


@dataclass(frozen=True)
class LocaleChange:
    before: tuple[str, ...]
    after: tuple[str, ...]


def set_app_locales(
    client: AdbClient, package: str, locales: tuple[str, ...], *, noted: Noted | None = None
) -> LocaleChange:
    """Set the app's languages (empty: back to the system's) and read them back."""
    _require(client)
    wanted = tuple(check_locale(tag) for tag in locales if tag)
    before = app_locales(client, package)
    if noted is not None:
        noted(lambda c: set_app_locales(c, package, before))
    argv = ["cmd", "locale", "set-app-locales", package, "--user", "current"]
    if wanted:
        argv += ["--locales", ",".join(wanted)]
    commands.text(client, argv)
    after = wait_for(
        lambda: app_locales(client, package),
        lambda now: tuple(tag.lower() for tag in now) == tuple(tag.lower() for tag in wanted),
        timeout=VERIFY_SECONDS,
        what=f"app locales of {package}",
    )
    return LocaleChange(before, after)
