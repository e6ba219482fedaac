"""Starting, stopping and inspecting apps, with the outcome verified on the device.

A launch is only reported as done when the app's window holds the focus. When it never does
and the process is dead, the root cause of that app's newest crash (since the launch) is
reported instead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from adbwire.device import commands, logs, packages, validate
from adbwire.device.errors import (
    AppCrashedError,
    LaunchNotVerifiedError,
    NotFoundError,
    VerificationError,
)
from adbwire.device.parsers import (
    ActivityStack,
    Component,
    WindowFocus,
    parse_activities,
    parse_resolve_activity,
    parse_window_focus,
)
from adbwire.device.parsers._text import find_error_line
from adbwire.errors import DeviceCommandError
from adbwire.wire.client import AdbClient

POLL_SECONDS = 0.25
ABI_HINT = (
    "the APK's native libraries are built for another CPU architecture than the device's "
    "(check the ABI list in device_info and build or install the matching ABI)"
)


@dataclass(frozen=True)
class LaunchResult:
    package: str
    component: str
    focused_activity: str | None
    seconds: float


def launcher_activity(client: AdbClient, package: str) -> Component:
    argv = ["cmd", "package", "resolve-activity", "--brief"]
    argv += ["-a", "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER", package]
    component = parse_resolve_activity(commands.run(client, argv).stdout.decode(errors="replace"))
    if component is None or component.package != package:
        component = packages.package_info(client, package).launchable_activity
    if component is None:
        raise NotFoundError(f"{package} has no launcher activity: name one with `activity`")
    return component


def focus(client: AdbClient) -> WindowFocus:
    return parse_window_focus(commands.text(client, ["dumpsys", "window", "windows"]))


def activity_stack(client: AdbClient) -> ActivityStack:
    return parse_activities(commands.text(client, ["dumpsys", "activity", "activities"]))


def launch(
    client: AdbClient, package: str, activity: str | None = None, *, timeout: float = 15.0
) -> LaunchResult:
    """Start the app (its launcher activity, or `activity`) and wait until it has the focus."""
    packages.require_installed(client, package)
    if activity is not None:
        validate.activity_name(activity)
        name = package + activity if activity.startswith(".") else activity
        component = Component(package, name)
    else:
        component = launcher_activity(client, package)
    since = logs.device_clock(client)
    started = time.monotonic()
    reply = commands.text(client, ["am", "start", "-W", "-n", component.flattened])
    error = find_error_line(reply, max_lines=6)
    if error is not None:
        raise DeviceCommandError(f"am start {component.flattened}: {error}")
    return wait_for_focus(client, package, component, since=since, started=started, timeout=timeout)


def wait_for_focus(
    client: AdbClient,
    package: str,
    component: Component,
    *,
    since: str,
    started: float,
    timeout: float,
) -> LaunchResult:
    deadline = started + timeout
    while True:
        seen = focus(client)
        if seen.dialog is not None and (seen.dialog_process or "").startswith(package):
            break  # "has stopped" / "isn't responding" dialog for this app
        if seen.focus_component is not None and seen.focus_component.package == package:
            return LaunchResult(
                package,
                component.flattened,
                seen.focus_component.class_name,
                round(time.monotonic() - started, 2),
            )
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL_SECONDS)
    raise _launch_failure(client, package, seen, since, timeout)


def _launch_failure(
    client: AdbClient, package: str, seen: WindowFocus, since: str, timeout: float
) -> DeviceCommandError:
    alive = bool(logs.pids_of(client, package))
    crash = logs.newest_crash(client, package, since=since)
    if crash is not None and (not alive or seen.dialog is not None):
        cause = f"{crash.root_cause_type}: {crash.root_cause_message}".strip(": ")
        details: dict[str, object] = {
            "exception": crash.exception_type,
            "root_cause": cause[:300],
            "process": crash.process,
            "time": crash.timestamp,
        }
        if ("EM_" in cause and "instead of" in cause) or "32-bit instead of 64-bit" in cause:
            details["hint"] = ABI_HINT
        return AppCrashedError(f"{package} crashed at launch: {cause[:300]}", details=details)
    on_top = seen.current_focus or "nothing"
    state = "running" if alive else "not running"
    return LaunchNotVerifiedError(
        f"{package} did not get the focus within {timeout:g}s ({state}; focused: {on_top})",
        details={"focused_window": seen.current_focus, "process_running": alive},
    )


def stop(client: AdbClient, package: str, *, timeout: float = 5.0) -> None:
    """Force-stop the app and check that its processes are gone."""
    packages.require_installed(client, package)
    commands.text(client, ["am", "force-stop", package])
    deadline = time.monotonic() + timeout
    while logs.pids_of(client, package):
        if time.monotonic() >= deadline:
            raise VerificationError(f"{package} still has a running process after force-stop")
        time.sleep(POLL_SECONDS)


def open_deep_link(
    client: AdbClient, uri: str, package: str | None = None, *, timeout: float = 10.0
) -> WindowFocus:
    """Send a VIEW intent for `uri` and return the focus once the opened activity has it."""
    argv = ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", validate.uri(uri)]
    if package is not None:
        packages.require_installed(client, package)
        argv.append(package)
    reply = commands.text(client, argv)
    error = find_error_line(reply, max_lines=6)
    if error is not None:
        if "unable to resolve Intent" in reply:
            raise NotFoundError(
                f"no activity handles {uri!r}" + (f" in {package}" if package else "")
            )
        raise DeviceCommandError(f"am start -d {uri}: {error}")
    deadline = time.monotonic() + timeout
    seen = focus(client)
    while package is not None and seen.package != package and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        seen = focus(client)
    return seen
