"""Installing an APK: what PackageManager answers, and the package it adds."""

from __future__ import annotations

import base64
import hashlib
import itertools
from collections.abc import Sequence

from adbwire.testing.scenario import ActivitySpec, ScreenSpec
from adbwire.testing.userland.android.apk import ApkError, Manifest, read_manifest
from adbwire.testing.userland.android.packages import RUNTIME_PERMISSIONS, InstalledPackage
from adbwire.testing.userland.android.state import AndroidState

_sessions = itertools.count(1_000_001_000, 7919)
_PLAIN_SCREEN = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    '<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="{pkg}" '
    'content-desc="" checkable="false" checked="false" clickable="false" enabled="true" '
    'focusable="false" focused="false" scrollable="false" long-clickable="false" '
    'password="false" selected="false" bounds="[0,0][{w},{h}]">'
    '<node index="0" text="{label}" resource-id="" class="android.widget.TextView" '
    'package="{pkg}" content-desc="" checkable="false" checked="false" clickable="false" '
    'enabled="true" focusable="false" focused="false" scrollable="false" '
    'long-clickable="false" password="false" selected="false" bounds="[0,{top}][{w},{bottom}]" />'
    "</node></hierarchy>"
)


def _apk_path(package: str, data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    first = base64.urlsafe_b64encode(digest[:16]).decode()
    second = base64.urlsafe_b64encode(digest[16:]).decode()[:24]
    return f"/data/app/~~{first}/{package}-{second}/base.apk"


def _plain_screen(state: AndroidState, package: str, activity: str) -> str:
    """A screen for an installed activity the scenario knows nothing about."""
    screen_id = f"installed:{activity}"
    if screen_id not in state.scenario.screens:
        display = state.scenario.display
        xml = _PLAIN_SCREEN.format(
            pkg=package,
            label=activity.rsplit(".", 1)[-1],
            w=display.width,
            h=display.height,
            top=display.height // 2 - 40,
            bottom=display.height // 2 + 40,
        )
        component = f"{package}/{activity}"
        state.scenario.screens[screen_id] = ScreenSpec(screen_id, component, xml)
    return screen_id


def install_apk_bytes(state: AndroidState, data: bytes, options: Sequence[str]) -> str:
    """Install `data`; returns "Success" or the "Failure [CODE: message]" line pm prints."""
    tmp = f"/data/app/vmdl{next(_sessions)}.tmp/base.apk"
    try:
        manifest = read_manifest(data)
    except ApkError as exc:
        if str(exc) == "NOT_APK":
            return (
                f"Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse {tmp}: "
                f"Failed to load asset path {tmp}]"
            )
        return (
            f"Failure [INSTALL_PARSE_FAILED_BAD_MANIFEST: Failed to parse {tmp}: "
            "Missing or unreadable AndroidManifest.xml]"
        )
    existing = state.packages.get(manifest.package)
    if (
        existing is not None
        and manifest.version_code < existing.version_code
        and "-d" not in options
    ):
        return (
            f"Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version "
            f"code {manifest.version_code} is older than current {existing.version_code}]"
        )
    installer = "com.android.shell"
    if "-i" in options and options.index("-i") + 1 < len(options):
        installer = options[options.index("-i") + 1]
    now = state.now_text()
    activities = _activities(state, manifest, existing)
    app = InstalledPackage(
        name=manifest.package,
        version_name=manifest.version_name or str(manifest.version_code),
        version_code=manifest.version_code,
        system=existing.system if existing else False,
        installer=installer,
        uid=existing.uid if existing else _free_uid(state),
        min_sdk=existing.min_sdk if existing else 24,
        target_sdk=existing.target_sdk if existing else state.sdk,
        first_install_time=existing.first_install_time if existing else now,
        last_update_time=now,
        apk=_apk_path(manifest.package, data),
        requested_permissions=list(manifest.permissions),
        granted_runtime=set(existing.granted_runtime) if existing else set(),
        activities=activities,
    )
    if "-g" in options:
        app.granted_runtime |= {p for p in manifest.permissions if p in RUNTIME_PERMISSIONS}
    if existing is not None:
        state.force_stop(manifest.package)
    state.packages[manifest.package] = app
    state.system_log(
        "I",
        "PackageManager",
        f"installPackageLI: {manifest.package} versionCode={manifest.version_code}",
    )
    return "Success"


def _activities(
    state: AndroidState, manifest: Manifest, existing: InstalledPackage | None
) -> list[ActivitySpec]:
    known = {a.name: a for a in existing.activities} if existing else {}
    found: list[ActivitySpec] = []
    for name in manifest.activities:
        if name in known:
            found.append(known[name])
            continue
        screen = _plain_screen(state, manifest.package, name)
        found.append(ActivitySpec(name, screen, launcher=name == manifest.launcher))
    return found


def _free_uid(state: AndroidState) -> int:
    return max((app.uid for app in state.packages.values()), default=10100) + 1
