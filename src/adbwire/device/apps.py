"""Starting, stopping and inspecting apps, with the outcome verified on the device.

A launch (or a deep link naming its app) is only reported as done when the app's window
holds the focus. While waiting, each poll reads the focus, the app's pids and the crash
lines logged since the start in one shell command, so a crash (Java or native) or an ANR
ends the wait at the next poll (``POLL_SECONDS``), with its root cause, instead of at the
timeout. A process seen running and then gone without a crash line is reported too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from adbwire.device import commands, logs, packages, validate
from adbwire.device.errors import (
    AppCrashedError,
    AppNotRespondingError,
    LaunchNotVerifiedError,
    NotFoundError,
    VerificationError,
)
from adbwire.device.parsers import (
    ActivityStack,
    Anr,
    Component,
    Crash,
    WindowFocus,
    crash_history,
    parse_activities,
    parse_logcat,
    parse_resolve_activity,
    parse_window_focus,
)
from adbwire.device.parsers._text import find_error_line
from adbwire.device.ui.snapshot import FOCUS_GREP
from adbwire.errors import DeviceCommandError
from adbwire.wire import shell_quote
from adbwire.wire.client import AdbClient

POLL_SECONDS = 0.25
_SECTION = "--adbwire-launch-probe--"
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
    """The focused window and app; from ``dumpsys activity activities`` (the resumed
    activity) when ``dumpsys window`` names neither."""
    seen = parse_window_focus(commands.text(client, ["dumpsys", "window", "windows"]))
    if seen.current_focus is None and seen.focused_app is None:
        resumed = activity_stack(client).focused
        if resumed is not None:
            return WindowFocus(
                resumed.flattened, resumed.short, resumed, resumed, None, None, "ResumedActivity"
            )
    return seen


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
    mark = logs.mark(client)
    started = time.monotonic()
    reply = commands.text(client, ["am", "start", "-W", "-n", component.flattened])
    error = find_error_line(reply, max_lines=6)
    if error is not None:
        raise DeviceCommandError(f"am start {component.flattened}: {error}")
    return wait_for_focus(client, package, component, mark=mark, started=started, timeout=timeout)


@dataclass(frozen=True)
class _Probe:
    focus: WindowFocus
    pids: tuple[int, ...]
    events: list[Crash | Anr]
    """Crashes and ANRs of the package logged since the launch, newest first."""


def _probe(client: AdbClient, package: str, mark: logs.LogMark) -> _Probe:
    """One shell command: the focus lines, the app's pids, and the crash lines since."""
    since = mark.since
    log = ["logcat", "-d", "-v", "threadtime", "-T", since]
    with_crash = shell_quote.join(
        [*log, "-b", "main", "-b", "system", "-b", "crash", *logs.CRASH_FILTER]
    )
    without = shell_quote.join([*log, "-b", "main", "-b", "system", *logs.CRASH_FILTER])
    line = (
        f"dumpsys window windows | {FOCUS_GREP}; echo {_SECTION}; "
        f"pidof {shell_quote.quote(package)}; echo {_SECTION}; "
        f"{with_crash} 2>/dev/null || {without}"
    )
    text = commands.decode(commands.run_line(client, line, timeout=30).stdout)
    window, _, rest = text.partition(_SECTION)
    pid_text, _, log_text = rest.partition(_SECTION)
    pids = tuple(int(word) for word in pid_text.split() if word.isdigit())
    logs.SEEN_PIDS.add(client.serial, package, pids)
    entries = [e for e in parse_logcat(log_text) if (e.timestamp or "") >= since]
    events = [e for e in crash_history(entries, package) if mark.is_new(e)]
    return _Probe(parse_window_focus(window), pids, events)


def wait_for_focus(
    client: AdbClient,
    package: str,
    component: Component,
    *,
    mark: logs.LogMark,
    started: float,
    timeout: float,
) -> LaunchResult:
    """Poll until ``package`` has the focus; a crash, an ANR, or the process dying ends the
    wait at once with the matching error."""
    deadline = started + timeout
    seen_running = False
    while True:
        probe = _probe(client, package, mark)
        seen = probe.focus
        if probe.events:
            raise _problem_error(package, probe.events[0])
        if seen.dialog is not None and (seen.dialog_process or "").startswith(package):
            raise _launch_failure(client, package, seen, mark, timeout)
        if seen.focus_component is not None and seen.focus_component.package == package:
            return LaunchResult(
                package,
                component.flattened,
                seen.focus_component.class_name,
                round(time.monotonic() - started, 2),
            )
        if seen_running and not probe.pids:
            raise _launch_failure(client, package, seen, mark, timeout, died=True)
        seen_running = seen_running or bool(probe.pids)
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL_SECONDS)
    raise _launch_failure(client, package, seen, mark, timeout)


def _problem_error(package: str, event: Crash | Anr) -> DeviceCommandError:
    if isinstance(event, Anr):
        reason = event.reason or "the app did not respond"
        return AppNotRespondingError(
            f"{package} is not responding: {reason[:300]}",
            details={
                "process": event.process,
                "pid": event.pid,
                "reason": reason[:300],
                "time": event.timestamp,
            },
        )
    return crash_error(package, event, "crashed at launch")


def crash_error(package: str, crash: Crash, what: str) -> AppCrashedError:
    """The error for a crash: its root cause, process, time and the top of its stack."""
    cause = f"{crash.root_cause_type}: {crash.root_cause_message}".strip(": ")
    details: dict[str, object] = {
        "kind": crash.kind,
        "exception": crash.exception_type,
        "root_cause": cause[:300],
        "process": crash.process,
        "time": crash.timestamp,
        "stack": [line.strip() for line in crash.stack[:8]],
    }
    if ("EM_" in cause and "instead of" in cause) or "32-bit instead of 64-bit" in cause:
        details["hint"] = ABI_HINT
    return AppCrashedError(f"{package} {what}: {cause[:300]}", details=details)


def _launch_failure(
    client: AdbClient,
    package: str,
    seen: WindowFocus,
    mark: logs.LogMark,
    timeout: float,
    *,
    died: bool = False,
) -> DeviceCommandError:
    alive = bool(logs.pids_of(client, package))
    crash = logs.newest_crash(client, package, after=mark)
    if crash is not None and (not alive or seen.dialog is not None):
        return crash_error(package, crash, "crashed at launch")
    if seen.dialog == "anr":
        return AppNotRespondingError(
            f"{package} is not responding (the system shows its ANR dialog)",
            details={"process": package, "focused_window": seen.current_focus},
        )
    on_top = seen.current_focus or "nothing"
    if died and not alive:
        return AppCrashedError(
            f"{package}'s process died during the launch without a crash report "
            f"(focused: {on_top})",
            details={"focused_window": seen.current_focus, "process_running": False},
        )
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
    """Send a VIEW intent for `uri` and return the focus once the activity it resolved to
    (or `package`'s) has it; a crash or ANR of that app is raised as for a launch."""
    argv = ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", validate.uri(uri)]
    if package is not None:
        packages.require_installed(client, package)
        argv.append(package)
    mark = logs.mark(client)
    started = time.monotonic()
    reply = commands.text(client, argv)
    error = find_error_line(reply, max_lines=6)
    if error is not None:
        if "unable to resolve Intent" in reply:
            raise NotFoundError(
                f"no activity handles {uri!r}" + (f" in {package}" if package else "")
            )
        raise DeviceCommandError(f"am start -d {uri}: {error}")
    target = _started_component(reply)
    expected = package or (target.package if target else None)
    if expected is None:
        return focus(client)
    component = target or Component(expected, expected)
    wait_for_focus(client, expected, component, mark=mark, started=started, timeout=timeout)
    return focus(client)


def _started_component(reply: str) -> Component | None:
    """The activity ``am start -W`` reports (``Activity: pkg/.Cls``), if any."""
    for line in reply.splitlines():
        key, _, value = line.partition(": ")
        if key.strip() == "Activity" and "/" in value:
            package, _, name = value.strip().partition("/")
            return Component(package, package + name if name.startswith(".") else name)
    return None
