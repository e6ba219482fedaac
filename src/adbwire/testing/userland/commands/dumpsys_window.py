"""`dumpsys window` and `dumpsys activity activities`, in Android 11-14's layout.

Only the parts tools read are detailed (focus lines, tasks, activity records); the rest of
each section is present in its real shape so parsers looking for markers find them.
"""

from __future__ import annotations

from adbwire.testing.userland.android.display_modes import (
    display_rotation_lines,
    rotated,
    rotation,
)
from adbwire.testing.userland.android.navigation import Visit
from adbwire.testing.userland.android.packages import short_component, split_component
from adbwire.testing.userland.android.state import AndroidState

IME_PACKAGE = "com.google.android.inputmethod.latin"


def window_title(visit: Visit) -> str:
    package, class_name = split_component(visit.screen.component)
    return class_name if package == "android" else f"{package}/{class_name}"


def window_ref(visit: Visit) -> str:
    return f"Window{{{visit.window_id} u0 {window_title(visit)}}}"


def record_ref(visit: Visit) -> str:
    package, class_name = split_component(visit.screen.component)
    component = short_component(package, class_name)
    return f"ActivityRecord{{{visit.record_id} u0 {component} t{visit.task_id}}}"


def _app_visits(state: AndroidState) -> list[Visit]:
    return [v for v in state.nav.stack if v.package != "android"]


def focus_lines(state: AndroidState) -> list[str]:
    top = state.nav.current
    apps = _app_visits(state)
    return [
        f"  mCurrentFocus={window_ref(top) if top else 'null'}",
        f"  mFocusedApp={record_ref(apps[-1]) if apps else 'null'}",
    ]


def _display_line(state: AndroidState) -> list[str]:
    width, height = rotated(
        state.display_size_override
        or (state.scenario.display.width, state.scenario.display.height),
        rotation(state),
    )
    return [
        f"  Display: mDisplayId=0 rootTasks={len({v.task_id for v in state.nav.stack}) + 2}",
        f"    init={state.scenario.display.width}x{state.scenario.display.height} "
        f"{state.scenario.display.density}dpi mMinSizeOfResizeableTaskDp=220 "
        f"cur={width}x{height} app={width}x{height - 132} rng={width}x{width - 126}-"
        f"{height - 132}x{height - 258}",
        f"    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{width},"
        f"{height}))",
        "",
    ]


def dump_displays(state: AndroidState) -> str:
    lines = ["WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)"]
    lines += [*_display_line(state), "  mLayoutSeq=212", *focus_lines(state)]
    lines += display_rotation_lines(state)
    lines += [
        "  mLastStatusBarVisibility=0x8008",
        "",
        "  displayId=0",
        "  mWallpaperTarget=null",
        "  mLastWallpaperX=0.0 mLastWallpaperY=0.5",
        "",
    ]
    return "\n".join(lines) + "\n"


def dump_windows(state: AndroidState) -> str:
    top = state.nav.current
    width, height = state.scenario.display.width, state.scenario.display.height
    windows: list[tuple[str, str, str, bool]] = []  # (ref, type, package, visible)
    if top is not None and top.keyboard:
        windows.append(("Window{9e92a29 u0 InputMethod}", "INPUT_METHOD", IME_PACKAGE, True))
    windows += [
        ("Window{e6c78f1 u0 StatusBar}", "STATUS_BAR", "com.android.systemui", True),
        ("Window{4d80902 u0 NavigationBar0}", "NAVIGATION_BAR", "com.android.systemui", True),
    ]
    for index, visit in enumerate(reversed(state.nav.stack)):
        kind = "APPLICATION" if visit.package == "android" else "BASE_APPLICATION"
        windows.append((window_ref(visit), kind, visit.package, index == 0))
    lines = ["WINDOW MANAGER WINDOWS (dumpsys window windows)"]
    for number, (ref, kind, package, visible) in enumerate(windows):
        lines += [
            f"  Window #{number} {ref}:",
            f"    mDisplayId=0 rootTaskId=1 mSession=Session{{7a3209a 3422:u0a10222}} "
            f"mClient=android.os.BinderProxy@4c9ebb{number}",
            f"    mOwnerUid={1000 if 'systemui' in package else 10190} showForAllUsers=false "
            f"package={package} appop=NONE",
            f"    mAttrs={{(0,0)(fillxfill) sim={{adjust=resize}} ty={kind} fmt=TRANSLUCENT}}",
            f"    Requested w={width} h={height} mLayoutSeq=212",
            f"    mViewVisibility={'0x0' if visible else '0x8'} mHaveFrame=true mObscured=false",
            f"    isOnScreen={str(visible).lower()}",
            f"    isVisible={str(visible).lower()}",
        ]
    lines += [
        "",
        "  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp "
        f"{state.scenario.display.density}dpi nrml long port finger -keyb/v/h -nav/h}}",
        "  mHasPermanentDpad=false",
        "  mTopFocusedDisplayId=0",
    ]
    if top is not None:
        lines.append(f"  mInputMethodTarget in display# 0 {window_ref(top)}")
    lines += ["  mInTouchMode=true", *focus_lines(state)]
    return "\n".join(lines) + "\n"


def dump_window(state: AndroidState, section: str | None) -> str:
    if section in ("displays", "d"):
        return dump_displays(state)
    if section in ("windows", "w"):
        return dump_windows(state)
    policy = (
        "WINDOW MANAGER POLICY STATE (dumpsys window policy)\n    mSafeMode=false "
        "mSystemReady=true mSystemBooted=true\n    mKeyguardDrawComplete=true "
        "mWindowManagerDrawComplete=true\n    isKeyguardShowing=false\n"
    )
    return "\n".join(
        [
            "WINDOW MANAGER LAST ANR (dumpsys window lastanr)\n"
            "  <no ANR has occurred since boot>\n",
            policy,
            dump_displays(state),
            dump_windows(state),
        ]
    )


def _task_line(state: AndroidState, visits: list[Visit], top: bool) -> str:
    first = visits[0]
    app = state.packages.get(first.package)
    home = first.screen.id == state.scenario.home_screen
    kind = "home" if home else "standard"
    affinity = f"A={app.uid}:{first.package}" if app else f"A=1000:{first.package}"
    return (
        f"Task{{{first.record_id[::-1]} #{first.task_id} type={kind} {affinity} U=0 "
        f"visible={str(top).lower()} visibleRequested={str(top).lower()} mode=fullscreen "
        f"translucent={str(home).lower()} sz={len(visits)}}}"
    )


def dump_activities(state: AndroidState) -> str:
    tasks: list[list[Visit]] = []
    for visit in reversed(state.nav.stack):
        if tasks and tasks[-1][0].task_id == visit.task_id:
            tasks[-1].append(visit)
        else:
            tasks.append([visit])
    lines = [
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
        "Display #0 (activities from top to bottom):",
    ]
    for number, visits in enumerate(tasks):
        task = _task_line(state, visits, number == 0)
        lines += [f"  * {task}", "    isSleeping=false"]
        if number == 0:
            lines.append(f"    topResumedActivity={record_ref(visits[0])}")
        for depth, visit in enumerate(visits):
            package, class_name = split_component(visit.screen.component)
            app = state.packages.get(package)
            component = short_component(package, class_name)
            resumed = number == 0 and depth == 0
            pid = app.pid if app and app.pid else 0
            lines += [
                f"    * Hist  #{len(visits) - 1 - depth}: {record_ref(visit)}",
                f"      packageName={package} processName={package}",
                "      launchedFromUid=2000 launchedFromPackage=com.android.shell "
                "launchedFromFeature=null userId=0",
                f"      app=ProcessRecord{{{visit.window_id[::-1]} {pid}:{package}/"
                f"{app.user_name.replace('_', '') if app else '1000'}}}",
                f"      Intent {{ flg=0x10000000 cmp={component} }}",
                f"      rootOfTask={str(depth == len(visits) - 1).lower()} task={task}",
                f"      mActivityComponent={component}",
                f"      baseDir={app.apk if app else '/system/framework/framework-res.apk'}",
                f"      dataDir={app.data_dir if app else '/data/system'}",
                f"      state={'RESUMED' if resumed else 'STOPPED'} "
                f"stopped={str(not resumed).lower()} delayedResume=false finishing=false",
                f"      nowVisible={str(resumed).lower()}",
                "",
            ]
    top = state.nav.current
    lines += ["  Resumed activities in task display areas (from top to bottom):"]
    if top is not None:
        lines += [f"    Resumed: {record_ref(top)}", "", f"  ResumedActivity: {record_ref(top)}"]
    lines += ["", "ActivityTaskSupervisor state:"]
    if tasks:
        lines.append(f"  topDisplayFocusedRootTask={_task_line(state, tasks[0], True)}")
    lines += [*_display_line(state), "  mLayoutSeq=212", *focus_lines(state)]
    return "\n".join(lines) + "\n"
