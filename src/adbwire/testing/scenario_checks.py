"""Consistency checks for a loaded scenario: every name it uses must point at something."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adbwire.testing.scenario import Scenario

LOG_BUFFERS = ("main", "system", "crash", "events", "radio", "kernel")
SETTINGS_NAMESPACES = ("global", "secure", "system")
SWIPE_DIRECTIONS = ("up", "down", "left", "right")
# pkg/Class, or a system window's title ("android/Application Not Responding: pkg")
_COMPONENT = re.compile(r"^[A-Za-z0-9_.]+/[^/\s]+$|^android/[^/\n]+$")


def check_scenario(scenario: Scenario) -> list[str]:
    """Return every problem found (empty when the scenario is consistent)."""
    problems: list[str] = []
    screens = scenario.screens
    packages = {package.name for package in scenario.packages}
    for special in (scenario.home_screen, scenario.initial_screen):
        if special is not None and special not in screens:
            problems.append(f"screen {special!r} (named in [device]) is not defined")
    for screen in screens.values():
        if not _COMPONENT.match(screen.component):
            problems.append(f"screen {screen.id}: component {screen.component!r} is not pkg/Class")
        problems.extend(_check_hierarchy(screen.id, screen.hierarchy))
    for package in scenario.packages:
        for activity in package.activities:
            if activity.screen is not None and activity.screen not in screens:
                problems.append(
                    f"activity {activity.name}: screen {activity.screen!r} is not defined"
                )
            fails = (activity.crash_log, activity.native_crash, activity.anr)
            if activity.screen is None and all(fault is None for fault in fails):
                problems.append(
                    f"activity {activity.name}: needs a screen, a crash_log, a native_crash "
                    "or an anr"
                )
        missing = set(package.granted_permissions) - set(package.requested_permissions)
        if missing:
            problems.append(
                f"package {package.name}: grants permissions it does not request: "
                + ", ".join(sorted(missing))
            )
    for note in scenario.notifications:
        if note.package not in packages:
            problems.append(f"notification {note.id}: package {note.package!r} is not installed")
        if note.screen is not None and note.screen not in screens:
            problems.append(f"notification {note.id}: screen {note.screen!r} is not defined")
    for transition in scenario.transitions:
        if transition.source != "*" and transition.source not in screens:
            problems.append(f"transition from unknown screen {transition.source!r}")
        if transition.target not in ("back", "home") and transition.target not in screens:
            problems.append(f"transition to unknown screen {transition.target!r}")
        if transition.swipe is not None and transition.swipe not in SWIPE_DIRECTIONS:
            problems.append(
                f"transition swipe {transition.swipe!r} is not one of up/down/left/right"
            )
    for screen in screens.values():
        if screen.package not in packages and screen.package != "android":
            problems.append(f"screen {screen.id}: package {screen.package} is not installed")
    for buffer in scenario.logcat:
        if buffer not in LOG_BUFFERS:
            problems.append(f"logcat buffer {buffer!r} is not one of {', '.join(LOG_BUFFERS)}")
    for namespace in scenario.settings:
        if namespace not in SETTINGS_NAMESPACES:
            problems.append(f"settings namespace {namespace!r} is not global/secure/system")
    for spec in scenario.files:
        if not spec.path.startswith("/"):
            problems.append(f"file {spec.path!r}: device paths must be absolute")
    return problems


def _check_hierarchy(screen_id: str, xml: str) -> list[str]:
    try:
        root = ET.fromstring(xml)  # noqa: S314 - the scenario's own, trusted asset
    except ET.ParseError as exc:
        return [f"screen {screen_id}: hierarchy is not well-formed XML: {exc}"]
    if root.tag != "hierarchy":
        return [f"screen {screen_id}: hierarchy root must be <hierarchy>, not <{root.tag}>"]
    for node in root.iter("node"):
        if not re.fullmatch(r"\[-?\d+,-?\d+\]\[-?\d+,-?\d+\]", node.get("bounds", "")):
            return [f"screen {screen_id}: a node has no valid bounds attribute"]
    return []
