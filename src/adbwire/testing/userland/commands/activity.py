"""`am` (start, force-stop, kill, broadcast) and `monkey -p PKG -c …LAUNCHER 1`."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from adbwire.testing.scenario import ActivitySpec
from adbwire.testing.userland.android.packages import short_component, split_component
from adbwire.testing.userland.commands.instrument import instrument
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

FLAG_ACTIVITY_NEW_TASK = 0x10000000
MAIN, LAUNCHER, VIEW = (
    "android.intent.action.MAIN",
    "android.intent.category.LAUNCHER",
    "android.intent.action.VIEW",
)
_EXTRA_OPTIONS = frozenset(
    {"--es", "--ei", "--ez", "--el", "--ef", "--eu", "--ecn", "--eia", "--esa", "--esn"}
)
_VALUE_OPTIONS = {
    "--user",
    "--display",
    "--windowingMode",
    "--activityType",
    "--task",
    "-R",
    "-P",
    "--start-profiler",
    "--sampling",
    "--attach-agent",
    "--receiver-permission",
    "-t",
    "-i",
}


def safe_uri(uri: str) -> str:
    """Uri.toSafeString(): what Android prints for an intent's data."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if scheme in ("tel", "sip", "sms", "smsto", "mailto", "nfc"):
        body = uri.split(":", 1)[1]
        return parts.scheme + ":" + "".join(c if c in "-@." else "x" for c in body)
    if scheme in ("http", "https", "ftp", "rtsp"):
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{parts.hostname or ''}{port}/..."
    return uri.split("#", 1)[0]


@dataclass
class Intent:
    action: str | None = None
    data: str | None = None
    mime: str | None = None
    categories: list[str] = field(default_factory=list)
    package: str | None = None
    component: tuple[str, str] | None = None
    flags: int = 0
    extras: bool = False

    def __str__(self) -> str:
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append(f"cat=[{','.join(self.categories)}]")
        if self.data:
            parts.append(f"dat={safe_uri(self.data)}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        if self.flags:
            parts.append(f"flg=0x{self.flags:x}")
        if self.package:
            parts.append(f"pkg={self.package}")
        if self.component:
            parts.append(f"cmp={short_component(*self.component)}")
        if self.extras:
            parts.append("(has extras)")
        return " ".join(parts)


def parse_intent(args: list[str]) -> tuple[Intent, set[str]]:
    """Intent.parseCommandArgs, for the options tools use; returns (intent, am's own flags)."""
    intent = Intent()
    options: set[str] = set()
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "-a" and rest:
            intent.action = rest.pop(0)
        elif arg == "-d" and rest:
            intent.data = rest.pop(0)
        elif arg == "-t" and rest:
            intent.mime = rest.pop(0)
        elif arg == "-c" and rest:
            intent.categories.append(rest.pop(0))
        elif arg == "-n" and rest:
            intent.component = split_component(rest.pop(0))
        elif arg == "-p" and rest:
            intent.package = rest.pop(0)
        elif arg == "-f" and rest:
            intent.flags |= int(rest.pop(0), 0)
        elif arg in _EXTRA_OPTIONS:
            del rest[: 1 if arg == "--esn" else 2]
            intent.extras = True
        elif arg in _VALUE_OPTIONS and rest:
            rest.pop(0)
        elif arg.startswith("-"):
            options.add(arg)
        elif ":" in arg:
            intent.data = arg
            intent.action = intent.action or VIEW
        elif "/" in arg:
            intent.component = split_component(arg)
        else:
            intent.package = arg
    return intent, options


def resolve(inv: Invocation, intent: Intent) -> tuple[str, ActivitySpec] | str:
    """The activity an intent starts, or the error line am prints."""
    state = inv.device.state
    if intent.component is not None:
        package, class_name = intent.component
        app = state.packages.get(package)
        activity = app.activity(class_name) if app else None
        if activity is None:
            return f"Error type 3\nError: Activity class {{{package}/{class_name}}} does not exist."
        return package, activity
    if intent.data is not None:
        found = state.resolve_view(intent.data, intent.package)
        if found is not None:
            return found
    elif intent.package is not None and intent.action in (None, MAIN):
        app = state.packages.get(intent.package)
        launcher = app.launcher_activity() if app else None
        if app is not None and launcher is not None:
            return app.name, launcher
    intent.flags |= FLAG_ACTIVITY_NEW_TASK
    return f"Error: Activity not started, unable to resolve Intent {{ {intent} }}"


def start(inv: Invocation, args: list[str]) -> int:
    intent, options = parse_intent(args)
    wait = "-W" in options
    state = inv.device.state
    if "-S" in options:
        package = intent.component[0] if intent.component else intent.package
        if package:
            inv.out(f"Stopping: {package}\n")
            with state.lock:
                state.force_stop(package)
    inv.out(f"Starting: Intent {{ {intent} }}\n")
    report = inv.out if wait else inv.err
    with state.lock:
        target = resolve(inv, intent)
        if isinstance(target, str):
            report(target + "\n")
            return 0
        package, activity = target
        launched = Intent(
            intent.action,
            intent.data,
            intent.mime,
            intent.categories,
            intent.package,
            (package, activity.name),
            intent.flags | FLAG_ACTIVITY_NEW_TASK,
            intent.extras,
        )
        result = state.launch(package, activity, str(launched))
    if result.status == "front":
        report("Warning: Activity not started, its current task has been brought to the front\n")
    if wait:
        lines = [
            "Status: ok",
            f"LaunchState: {result.launch_state}",
            f"Activity: {result.component}",
        ]
        if result.total_ms is not None:
            lines.append(f"TotalTime: {result.total_ms}")
        lines += [f"WaitTime: {(result.total_ms or 180) + 4}", "Complete"]
        inv.out("".join(line + "\n" for line in lines))
    return 0


def am(inv: Invocation) -> int:
    if not inv.args:
        inv.err("usage: am [start|force-stop|kill|broadcast] ...\n")
        return 1
    verb, args = inv.args[0], inv.args[1:]
    state = inv.device.state
    if verb in ("start", "start-activity"):
        return start(inv, args)
    if verb in ("force-stop", "kill", "stop-app") and args:
        package = [a for a in args if not a.startswith("-") and a != "0"][-1]
        with state.lock:
            if verb == "kill":
                state.kill(package, "kill background")
            else:
                state.force_stop(package)
        return 0
    if verb == "instrument":
        return instrument(inv, args)
    if verb == "broadcast":
        intent, _ = parse_intent(args)
        inv.out(
            f"Broadcasting: Intent {{ {intent} flg=0x400000 }}\nBroadcast completed: result=0\n"
        )
        return 0
    if verb == "get-current-user":
        inv.out("0\n")
        return 0
    inv.err(f"Unknown command: {verb}\n")
    return 255


def monkey(inv: Invocation) -> int:
    args = inv.args
    bash_lines = "".join(f"  bash arg: {arg}\n" for arg in args)
    package = (
        args[args.index("-p") + 1] if "-p" in args and args.index("-p") + 1 < len(args) else None
    )
    inv.out(bash_lines)
    state = inv.device.state
    app = state.packages.get(package or "")
    launcher = app.launcher_activity() if app else None
    if app is None or launcher is None:
        inv.err("** No activities found to run, monkey aborted.\n")
        return 252
    inv.out(f"args: [{', '.join(args)}]\n" + "".join(f' arg: "{a}"\n' for a in args))
    inv.out(
        "".join(
            f'data="{a}"\n' for i, a in enumerate(args) if i > 0 and args[i - 1] in ("-p", "-c")
        )
    )
    intent = Intent(MAIN, None, None, [LAUNCHER], None, (app.name, launcher.name), 0x10200000)
    with state.lock:
        state.launch(app.name, launcher, str(intent))
    inv.out(
        "Events injected: 1\n## Network stats: elapsed time=31ms (0ms mobile, 0ms wifi, "
        "31ms not connected)\n"
    )
    return 0


COMMANDS: dict[str, CommandFn] = {"am": am, "monkey": monkey}
