"""Scenarios: the data that drives the simulated device's Android userland.

A scenario is a TOML file (format documented in docs/simulator.md) plus the assets it names
(uiautomator XML dumps, PNG screenshots, logcat files, crash traces, files for the device's
file tree), all paths relative to the TOML file. `load_scenario()` with no argument loads the
default scenario shipped in `adbwire/testing/data/`.
"""

from __future__ import annotations

import base64
import hashlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adbwire.errors import UsageError
from adbwire.testing.scenario_checks import check_scenario

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

DEFAULT_SCENARIO = Path(__file__).parent / "data" / "default.toml"
FORMAT_VERSION = 1
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Display:
    width: int = 1080
    height: int = 2400
    density: int = 420


@dataclass(frozen=True)
class ActivitySpec:
    name: str  # fully qualified class name
    screen: str | None = None  # the screen it shows when started
    launcher: bool = False  # has a MAIN/LAUNCHER intent filter
    deep_links: tuple[str, ...] = ()  # URI prefixes it handles for action VIEW
    crash_log: str | None = None  # Java stack trace printed when it crashes at launch
    native_crash: str | None = None  # tombstone body (from "signal ..."): dies in native code
    anr: str | None = None  # ANR reason: its main thread hangs at launch
    anr_after_ms: int = 1000  # how long after the launch the ANR is reported


@dataclass(frozen=True)
class PackageSpec:
    name: str
    version_name: str = "1.0"
    version_code: int = 1
    system: bool = False
    installer: str | None = None
    uid: int = 10100
    min_sdk: int = 24
    target_sdk: int = 34
    first_install_time: str = "2024-01-01 00:00:00"
    last_update_time: str = "2024-01-01 00:00:00"
    apk: str = ""
    requested_permissions: tuple[str, ...] = ()
    granted_permissions: tuple[str, ...] = ()
    activities: tuple[ActivitySpec, ...] = ()
    running: bool = False  # its process runs when the device starts
    pid: int | None = None  # that process's pid (one is picked when not given)


@dataclass(frozen=True)
class ScreenSpec:
    id: str
    component: str  # "package/.Activity" (or "package/Window title" for system windows)
    hierarchy: str  # the uiautomator dump, exactly as `uiautomator dump` writes it
    screenshot: bytes | None = None  # PNG; rendered from the hierarchy when absent
    keyboard: bool = False  # soft keyboard up when the screen appears
    secure: bool = False  # FLAG_SECURE: screencap returns black

    @property
    def package(self) -> str:
        return self.component.split("/", 1)[0]


@dataclass(frozen=True)
class Selector:
    resource_id: str | None = None
    text: str | None = None
    content_desc: str | None = None
    class_name: str | None = None


@dataclass(frozen=True)
class Transition:
    source: str  # screen id, or "*" for any screen
    target: str  # screen id, or "back" / "home"
    tap: Selector | None = None
    key: str | None = None  # KEYCODE_ name
    swipe: str | None = None  # "up", "down", "left", "right"


@dataclass(frozen=True)
class FileSpec:
    path: str
    content: bytes = b""
    directory: bool = False
    mode: int | None = None
    mtime: str | None = None


@dataclass(frozen=True)
class NotificationSpec:
    package: str
    id: int
    title: str
    text: str = ""
    channel: str = "default"
    tag: str | None = None
    minutes_ago: int = 0
    ongoing: bool = False
    screen: str | None = None  # where tapping it in the shade leads
    uid: int = 1000  # the posting package's uid


@dataclass(frozen=True)
class ProcessSpec:
    name: str
    pid: int
    uid: int = 1000


@dataclass
class Scenario:
    """Everything the simulated Android userland starts from."""

    name: str = "empty"
    display: Display = field(default_factory=Display)
    clock: str = "2024-05-02 10:15:00"  # wall clock when the simulator starts
    uptime_seconds: int = 600  # how long ago the device booted
    home_screen: str | None = None
    initial_screen: str | None = None
    properties: dict[str, str] = field(default_factory=dict)
    settings: dict[str, dict[str, str]] = field(default_factory=dict)
    battery: dict[str, int | bool | str] = field(default_factory=dict)
    packages: list[PackageSpec] = field(default_factory=list)
    screens: dict[str, ScreenSpec] = field(default_factory=dict)
    transitions: list[Transition] = field(default_factory=list)
    logcat: dict[str, str] = field(default_factory=dict)  # buffer -> threadtime text
    files: list[FileSpec] = field(default_factory=list)
    processes: list[ProcessSpec] = field(default_factory=list)
    notifications: list[NotificationSpec] = field(default_factory=list)
    source: Path | None = None


def load_scenario(path: Path | None = None) -> Scenario:
    """Load and check a scenario file; None loads the default scenario shipped with adbwire."""
    path = DEFAULT_SCENARIO if path is None else Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"scenario {path}: cannot read it: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"scenario {path}: not valid TOML: {exc}") from exc
    try:
        scenario = _Loader(path).build(raw)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, UsageError):
            raise
        raise UsageError(f"scenario {path}: {exc}") from exc
    problems = check_scenario(scenario)
    if problems:
        raise UsageError(f"scenario {path}: " + "; ".join(problems))
    return scenario


class _Loader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.base = path.parent

    def asset(self, relative: str) -> bytes:
        asset = (self.base / relative).resolve()
        try:
            return asset.read_bytes()
        except OSError as exc:
            raise UsageError(f"scenario {self.path}: asset {relative!r}: {exc.strerror}") from exc

    def text_asset(self, relative: str) -> str:
        return self.asset(relative).decode("utf-8")

    def build(self, raw: Mapping[str, Any]) -> Scenario:
        version = raw.get("format", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise UsageError(f"scenario {self.path}: format {version} is not supported")
        _no_unknown(
            raw,
            "top level",
            {
                "format",
                "name",
                "description",
                "device",
                "properties",
                "settings",
                "battery",
                "packages",
                "screens",
                "transitions",
                "logcat",
                "files",
                "processes",
                "notifications",
            },
        )
        device = raw.get("device", {})
        _no_unknown(
            device,
            "[device]",
            {
                "width",
                "height",
                "density",
                "clock",
                "uptime_seconds",
                "home_screen",
                "initial_screen",
            },
        )
        display = Display(
            int(device.get("width", 1080)),
            int(device.get("height", 2400)),
            int(device.get("density", 420)),
        )
        settings = {
            ns: {k: str(v) for k, v in table.items()}
            for ns, table in raw.get("settings", {}).items()
        }
        for namespace in ("global", "secure", "system"):
            settings.setdefault(namespace, {})
        screens = [self.screen(item) for item in raw.get("screens", [])]
        packages = [self.package(item) for item in raw.get("packages", [])]
        uids = {package.name: package.uid for package in packages}
        return Scenario(
            name=str(raw.get("name", self.path.stem)),
            display=display,
            clock=str(device.get("clock", "2024-05-02 10:15:00")),
            uptime_seconds=int(device.get("uptime_seconds", 600)),
            home_screen=device.get("home_screen"),
            initial_screen=device.get("initial_screen", device.get("home_screen")),
            properties={str(k): str(v) for k, v in raw.get("properties", {}).items()},
            settings=settings,
            battery=dict(raw.get("battery", {})),
            packages=packages,
            screens={screen.id: screen for screen in screens},
            transitions=[self.transition(item) for item in raw.get("transitions", [])],
            logcat={buf: self.text_asset(rel) for buf, rel in raw.get("logcat", {}).items()},
            files=[self.file(item) for item in raw.get("files", [])],
            processes=[
                ProcessSpec(str(p["name"]), int(p["pid"]), int(p.get("uid", 1000)))
                for p in raw.get("processes", [])
            ],
            notifications=[self.notification(item, uids) for item in raw.get("notifications", [])],
            source=self.path,
        )

    def notification(self, raw: Mapping[str, Any], uids: Mapping[str, int]) -> NotificationSpec:
        package = str(raw["package"])
        allowed = {"package", "id", "tag", "channel", "title", "text", "minutes_ago", "ongoing"}
        _no_unknown(raw, f"notification of {package}", allowed | {"screen"})
        return NotificationSpec(
            package=package,
            id=int(raw["id"]),
            title=str(raw["title"]),
            text=str(raw.get("text", "")),
            channel=str(raw.get("channel", "default")),
            tag=raw.get("tag"),
            minutes_ago=int(raw.get("minutes_ago", 0)),
            ongoing=bool(raw.get("ongoing", False)),
            screen=raw.get("screen"),
            uid=uids.get(package, 1000),
        )

    def package(self, raw: Mapping[str, Any]) -> PackageSpec:
        name = str(raw["name"])
        _no_unknown(raw, f"package {name}", {f for f in PackageSpec.__dataclass_fields__})
        activities = tuple(self.activity(name, item) for item in raw.get("activities", []))
        apk = str(raw.get("apk") or _default_apk_path(name, bool(raw.get("system", False))))
        fields: dict[str, Any] = {
            key: raw[key] for key in PackageSpec.__dataclass_fields__ if key in raw
        }
        fields.update(
            apk=apk,
            activities=activities,
            requested_permissions=tuple(raw.get("requested_permissions", ())),
            granted_permissions=tuple(raw.get("granted_permissions", ())),
        )
        return PackageSpec(**fields)

    def activity(self, package: str, raw: Mapping[str, Any]) -> ActivitySpec:
        name = str(raw["name"])
        _no_unknown(
            raw,
            f"activity {name}",
            {
                "name",
                "screen",
                "launcher",
                "deep_links",
                "crash_log",
                "native_crash",
                "anr",
                "anr_after_ms",
            },
        )
        crash = raw.get("crash_log")
        native = raw.get("native_crash")
        return ActivitySpec(
            name=package + name if name.startswith(".") else name,
            screen=raw.get("screen"),
            launcher=bool(raw.get("launcher", False)),
            deep_links=tuple(raw.get("deep_links", ())),
            crash_log=self.text_asset(crash) if crash else None,
            native_crash=self.text_asset(native) if native else None,
            anr=str(raw["anr"]) if raw.get("anr") else None,
            anr_after_ms=int(raw.get("anr_after_ms", 1000)),
        )

    def screen(self, raw: Mapping[str, Any]) -> ScreenSpec:
        screen_id = str(raw["id"])
        _no_unknown(
            raw,
            f"screen {screen_id}",
            {"id", "component", "hierarchy", "screenshot", "keyboard", "secure"},
        )
        png = self.asset(raw["screenshot"]) if raw.get("screenshot") else None
        if png is not None and not png.startswith(PNG_SIGNATURE):
            raise UsageError(f"scenario {self.path}: screen {screen_id}: screenshot is not a PNG")
        return ScreenSpec(
            id=screen_id,
            component=str(raw["component"]),
            # uiautomator's own file starts at "<?xml"; a copy with a blank line first is the
            # same dump (the device-side parser accepts it too)
            hierarchy=self.text_asset(raw["hierarchy"]).lstrip("\ufeff \t\r\n"),
            screenshot=png,
            keyboard=bool(raw.get("keyboard", False)),
            secure=bool(raw.get("secure", False)),
        )

    def transition(self, raw: Mapping[str, Any]) -> Transition:
        _no_unknown(raw, "transition", {"from", "to", "tap", "key", "swipe"})
        tap = raw.get("tap")
        selector = None
        if tap is not None:
            _no_unknown(tap, "tap selector", {"resource_id", "text", "content_desc", "class_name"})
            selector = Selector(**{key: str(value) for key, value in tap.items()})
        key = raw.get("key")
        if key is not None:
            key = str(key) if str(key).startswith("KEYCODE_") else "KEYCODE_" + str(key)
        if [tap is not None, key is not None, "swipe" in raw].count(True) != 1:
            raise ValueError("a transition needs exactly one of tap, key, swipe")
        return Transition(
            source=str(raw["from"]),
            target=str(raw["to"]),
            tap=selector,
            key=key,
            swipe=raw.get("swipe"),
        )

    def file(self, raw: Mapping[str, Any]) -> FileSpec:
        path = str(raw["path"])
        _no_unknown(raw, f"file {path}", {"path", "text", "source", "dir", "mode", "mtime"})
        if raw.get("dir"):
            return FileSpec(path, directory=True, mode=raw.get("mode"), mtime=raw.get("mtime"))
        content = raw["text"].encode() if "text" in raw else self.asset(raw["source"])
        return FileSpec(path, content, mode=raw.get("mode"), mtime=raw.get("mtime"))


def _no_unknown(raw: Mapping[str, Any], where: str, allowed: set[str]) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}")


def _default_apk_path(package: str, system: bool) -> str:
    if system:
        leaf = package.rsplit(".", 1)[-1].capitalize()
        return f"/system/app/{leaf}/{leaf}.apk"
    digest = hashlib.sha256(package.encode()).digest()
    first = base64.urlsafe_b64encode(digest[:16]).decode()
    second = base64.urlsafe_b64encode(digest[16:32]).decode()
    return f"/data/app/~~{first}/{package}-{second}/base.apk"
