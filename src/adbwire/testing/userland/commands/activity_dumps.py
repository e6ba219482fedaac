"""``dumpsys activity PACKAGE`` (the app's own activity and fragment dump) and the Android
8-9 layout of ``dumpsys activity activities`` (``Stack #N: type=...`` / ``TaskRecord{...}``).

The fragment trees are the default scenario's app (com.example.notes), by screen: its list
and editor are Navigation destinations inside a NavHostFragment (the editor also holds a
hidden bottom sheet); its settings and vault are Compose screens (a ComponentActivity, so no
fragment manager is printed at all). Screens not listed here host no fragments. The layout
follows AndroidX's FragmentManager and FragmentActivity dumps.
"""

from __future__ import annotations

from dataclasses import dataclass

from adbwire.testing.userland.android.navigation import Visit
from adbwire.testing.userland.android.packages import short_component, split_component
from adbwire.testing.userland.android.state import AndroidState
from adbwire.testing.userland.commands.dumpsys_window import record_ref


@dataclass(frozen=True)
class SimFragment:
    name: str
    who: str
    fragment_id: int
    tag: str | None = None
    state: int = 7  # AndroidX RESUMED
    hidden: bool = False
    children: tuple[SimFragment, ...] = ()

    def text(self) -> str:
        tag = f" tag={self.tag}" if self.tag else ""
        identity = int(self.who[:7], 16)
        return f"{self.name}{{{identity:07x}}} ({self.who} id=0x{self.fragment_id:x}{tag})"


_NAV = 0x7F0A0160
FRAGMENTS_BY_SCREEN: dict[str, tuple[SimFragment, ...]] = {
    "notes_list": (
        SimFragment(
            "NavHostFragment",
            "7e0b7c57-1d7e-4d5e-9a38-3f1c2b0e6a11",
            _NAV,
            children=(
                SimFragment("NotesListFragment", "b3c1a9d2-5f0e-4c6b-8d7a-1e2f3a4b5c6d", _NAV),
            ),
        ),
    ),
    "notes_list_scrolled": (
        SimFragment(
            "NavHostFragment",
            "7e0b7c57-1d7e-4d5e-9a38-3f1c2b0e6a11",
            _NAV,
            children=(
                SimFragment("NotesListFragment", "b3c1a9d2-5f0e-4c6b-8d7a-1e2f3a4b5c6d", _NAV),
            ),
        ),
    ),
    "note_editor": (
        SimFragment(
            "NavHostFragment",
            "0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b",
            _NAV,
            children=(
                SimFragment("NoteEditorFragment", "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d", _NAV),
                SimFragment(
                    "FormattingSheetFragment",
                    "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
                    0,
                    tag="formatting",
                    state=5,
                    hidden=True,
                ),
            ),
        ),
    ),
}
COMPOSE_SCREENS = frozenset({"settings", "vault"})


def dump_package_activities(state: AndroidState, package: str) -> str:
    """What the app's process prints for ``dumpsys activity PACKAGE``: its activities,
    bottom of the stack first, each with its fragment manager when it has one."""
    app = state.packages.get(package)
    pid = app.pid if app and app.pid else None
    top = state.nav.current
    lines: list[str] = []
    task_seen: set[int] = set()
    for visit in state.nav.stack:
        if visit.package != package:
            continue
        if visit.task_id not in task_seen:
            task_seen.add(visit.task_id)
            lines.append(f"TASK {package} id={visit.task_id} userId=0")
        lines += _activity_block(state, visit, pid, resumed=visit is top)
    return "\n".join(lines) + "\n"


def _activity_block(
    state: AndroidState, visit: Visit, pid: int | None, *, resumed: bool
) -> list[str]:
    package, class_name = split_component(visit.screen.component)
    component = short_component(package, class_name)
    pid_text = str(pid) if pid else "(not running)"
    hosted = FRAGMENTS_BY_SCREEN.get(visit.screen.id, ())
    lines = [
        f"  ACTIVITY {component} {visit.record_id} pid={pid_text}",
        f"    Local Activity {visit.window_id} State:",
        f"      mResumed={str(resumed).lower()} mStopped={str(not resumed).lower()} "
        "mFinished=false",
        "      mIsChangingConfigurations=false",
        f"      mCurrentConfig={{1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp "
        f"{state.scenario.display.density}dpi nrml long port finger -keyb/v/h -nav/h}}",
        "      mLoadersStarted=true",
    ]
    if visit.screen.id not in COMPOSE_SCREENS:
        lines += [
            f"    Local FragmentActivity {visit.window_id} State:",
            f"      mCreated=true mResumed={str(resumed).lower()} "
            f"mStopped={str(not resumed).lower()}",
        ]
        lines += _manager(hosted, "    ", resumed)
    lines += [
        "    ViewRoot:",
        "      mAdded=true mRemoved=false mStopped=false mPausedForTransition=false",
        f"      mView={visit.screen.component.split('/')[-1]}",
    ]
    return lines


def _manager(fragments: tuple[SimFragment, ...], prefix: str, resumed: bool) -> list[str]:
    lines: list[str] = []
    if fragments:
        lines.append(f"{prefix}Active Fragments:")
        for fragment in fragments:
            inner = prefix + "    "
            state = fragment.state if resumed else min(fragment.state, 4)
            lines += [
                f"{prefix}{fragment.text()}",
                f"{inner}mFragmentId=#{fragment.fragment_id:x} "
                f"mContainerId=#{fragment.fragment_id:x} mTag={fragment.tag or 'null'}",
                f"{inner}mState={state} mWho={fragment.who} mBackStackNesting=0",
                f"{inner}mAdded=true mRemoving=false mFromLayout=false mInLayout=false",
                f"{inner}mHidden={str(fragment.hidden).lower()} mDetached=false mMenuVisible=true "
                "mHasMenu=false",
                f"{inner}Child FragmentManager{{{fragment.who[:7]} in {fragment.name}}}:",
            ]
            lines += _manager(fragment.children, inner + "  ", resumed)
        lines.append(f"{prefix}Added Fragments:")
        lines += [f"{prefix}  #{i}: {f.text()}" for i, f in enumerate(fragments)]
    lines += [
        f"{prefix}FragmentManager misc state:",
        f"{prefix}  mHost=androidx.fragment.app.FragmentActivity$HostCallbacks@a4d5e60",
        f"{prefix}  mCurState={7 if resumed else 4} mStateSaved=false mStopped=false "
        "mDestroyed=false",
    ]
    return lines


def dump_activities_old(state: AndroidState, *, detailed: bool = False) -> str:
    """``dumpsys activity activities`` as Android 8-9 print it: stacks, and each task only in
    the short "Running activities" list (``Run #N:``, no states) unless ``detailed`` (``-a``)
    adds the ``* TaskRecord`` / ``* Hist`` blocks with each activity's ``state=``."""
    tasks: list[list[Visit]] = []
    for visit in reversed(state.nav.stack):
        if tasks and tasks[-1][0].task_id == visit.task_id:
            tasks[-1].append(visit)
        else:
            tasks.append([visit])
    top = state.nav.current
    lines = [
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
        "Display #0 (activities from top to bottom):",
    ]
    for number, visits in enumerate(tasks):
        first = visits[0]
        home = first.screen.id == state.scenario.home_screen
        stack_id = 0 if home else 100 + first.task_id
        kind = "home" if home else "standard"
        record = (
            f"TaskRecord{{{first.record_id[::-1]} #{first.task_id} A={first.package} U=0 "
            f"StackId={stack_id} sz={len(visits)}}}"
        )
        lines += [
            f"  Stack #{stack_id}: type={kind} mode=fullscreen",
            "  isSleeping=false",
            "  mBounds=Rect(0, 0 - 0, 0)",
            f"    Task id #{first.task_id}",
        ]
        if detailed:
            lines += [
                f"    * {record}",
                f"      userId=0 effectiveUid={first.package} mCallingUid=2000 "
                "mUserSetupComplete=true",
                f"      affinity={first.package}",
            ]
        for depth, visit in enumerate(visits if detailed else []):
            package, _ = split_component(visit.screen.component)
            resumed = number == 0 and depth == 0
            lines += [
                f"      * Hist #{len(visits) - 1 - depth}: {record_ref(visit)}",
                f"          packageName={package} processName={package}",
                f"          state={'RESUMED' if resumed else 'STOPPED'} stopped="
                f"{str(not resumed).lower()} delayedResume=false finishing=false",
            ]
        lines += ["", "    Running activities (most recent first):", f"      {record}"]
        lines += [
            f"        Run #{len(visits) - 1 - d}: {record_ref(v)}" for d, v in enumerate(visits)
        ]
        if number == 0 and top is not None:
            lines += ["", f"    mResumedActivity: {record_ref(top)}"]
        lines.append("")
    if top is not None:
        lines += [f"  ResumedActivity: {record_ref(top)}", ""]
        lines.append(f"  mFocusedActivity: {record_ref(top)}")
    return "\n".join(lines) + "\n"
