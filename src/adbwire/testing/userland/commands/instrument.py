"""``am instrument`` and ``pm list instrumentation``: scripted test runs, in real time.

The default scenario's app (com.example.notes) ships two test packages run by
AndroidJUnitRunner: ``com.example.notes.test`` (two passes, a failure with its stack
trace, an ignored test, then a test that crashes the app, so the last test never runs)
and ``com.example.notes.soak`` (one test that runs for a minute: something to cancel).
A package is listed only while its target app is installed.

Output is what ``am instrument -w -r`` prints (status bundles with sorted keys, the
runner's summary, the final code), written as each test runs, with a short pause per
test. The tests run in the target app's process (started if needed): force-stopping the
target ends the run with ``Process crashed.``, as on a phone. A client that only closes
its stream (without stopping the target) leaves the app process running, as on a phone.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from adbwire.testing.userland.shell.interp import Invocation

RUNNER = "androidx.test.runner.AndroidJUnitRunner"
POLL_SECONDS = 0.02


@dataclass(frozen=True)
class SimTest:
    class_name: str
    method: str
    outcome: str  # pass, fail, ignore, crash
    seconds: float = 0.05
    trace: str | None = None


_FAILURE = """java.lang.AssertionError: expected:<Groceries> but was:<>
\tat org.junit.Assert.fail(Assert.java:89)
\tat org.junit.Assert.failNotEquals(Assert.java:835)
\tat org.junit.Assert.assertEquals(Assert.java:120)
\tat org.junit.Assert.assertEquals(Assert.java:146)
\tat com.example.notes.NoteEditorTest.savesTheTitle(NoteEditorTest.kt:42)
\tat java.lang.reflect.Method.invoke(Native Method)
\tat org.junit.runners.model.FrameworkMethod$1.runReflectiveCall(FrameworkMethod.java:59)
\tat org.junit.runners.ParentRunner.run(ParentRunner.java:413)
\tat androidx.test.internal.runner.TestExecutor.execute(TestExecutor.java:67)
\tat androidx.test.runner.AndroidJUnitRunner.onStart(AndroidJUnitRunner.java:444)
\tat android.app.Instrumentation$InstrumentationThread.run(Instrumentation.java:2361)
"""
_CRASH = """java.lang.IllegalStateException: stats table is empty
\tat com.example.notes.stats.StatsRepository.load(StatsRepository.kt:31)
\tat com.example.notes.StatsActivity.onCreate(StatsActivity.kt:22)
\tat android.app.Activity.performCreate(Activity.java:8595)
\tat android.app.ActivityThread.performLaunchActivity(ActivityThread.java:3784)"""

SUITES: dict[str, tuple[str, tuple[SimTest, ...]]] = {
    "com.example.notes.test": (
        "com.example.notes",
        (
            SimTest("com.example.notes.NotesListTest", "opensTheList", "pass"),
            SimTest("com.example.notes.NotesListTest", "addsANote", "pass"),
            SimTest("com.example.notes.NoteEditorTest", "savesTheTitle", "fail", trace=_FAILURE),
            SimTest("com.example.notes.NoteEditorTest", "discardsAnEmptyNote", "ignore"),
            SimTest("com.example.notes.StatsTest", "showsCounts", "crash", trace=_CRASH),
            SimTest("com.example.notes.StatsTest", "exportsCsv", "pass"),
        ),
    ),
    "com.example.notes.soak": (
        "com.example.notes",
        (SimTest("com.example.notes.SoakTest", "syncsForAMinute", "pass", seconds=60.0),),
    ),
}


def list_instrumentation(inv: Invocation, args: list[str]) -> int:
    state = inv.device.state
    wanted = next((a for a in args if not a.startswith("-")), None)
    lines = []
    for test_package, (target, _tests) in SUITES.items():
        if target in state.packages and wanted in (None, target):
            lines.append(f"instrumentation:{test_package}/{RUNNER} (target={target})")
    inv.out("".join(line + "\n" for line in lines))
    return 0


def instrument(inv: Invocation, args: list[str]) -> int:
    raw = "-r" in args
    filters: list[str] = []
    rest = list(args)
    component = None
    while rest:
        arg = rest.pop(0)
        if arg == "-e" and len(rest) >= 2:
            key, value = rest.pop(0), rest.pop(0)
            if key == "class":
                filters += [item for item in value.split(",") if item]
        elif arg in ("-w", "-r", "-m", "--no-hidden-api-checks", "--no-window-animation"):
            continue
        elif arg in ("--user", "-p") and rest:
            rest.pop(0)
        elif not arg.startswith("-"):
            component = arg
    suite = _suite(inv, component)
    if suite is None:
        return _not_found(inv, component or "")
    target, tests = suite
    chosen = [t for t in tests if _selected(t, filters)]
    return _Run(inv, target, chosen, raw).run()


def _suite(inv: Invocation, component: str | None) -> tuple[str, tuple[SimTest, ...]] | None:
    if component is None or "/" not in component:
        return None
    package, runner = component.split("/", 1)
    if runner.startswith("."):
        runner = package + runner
    found = SUITES.get(package)
    if found is None or runner != RUNNER or found[0] not in inv.device.state.packages:
        return None
    return found


def _selected(test: SimTest, filters: list[str]) -> bool:
    if not filters:
        return True
    return test.class_name in filters or f"{test.class_name}#{test.method}" in filters


def _not_found(inv: Invocation, component: str) -> int:
    inv.out(
        "INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: "
        f"ComponentInfo{{{component}}}\n"
        "INSTRUMENTATION_STATUS: id=ActivityManagerService\n"
        "INSTRUMENTATION_STATUS_CODE: -1\n"
        f"android.util.AndroidException: INSTRUMENTATION_FAILED: {component}\n"
        "\tat com.android.commands.am.Instrument.run(Instrument.java:519)\n"
        "\tat com.android.commands.am.Am.runInstrument(Am.java:196)\n"
        "\tat com.android.commands.am.Am.onRun(Am.java:80)\n"
    )
    return 1


class _Run:
    def __init__(self, inv: Invocation, target: str, tests: list[SimTest], raw: bool) -> None:
        self.inv, self.target, self.tests, self.raw = inv, target, tests, raw
        self.pid = 0
        self.failures: list[SimTest] = []
        self.ran = 0

    def run(self) -> int:
        state = self.inv.device.state
        with state.lock:
            self.pid, _ = state.start_process(self.target, reason="added application")
        started = time.monotonic()
        for number, test in enumerate(self.tests, start=1):
            if test.outcome == "ignore":
                self._status(test, number, -3, stream="")
                continue
            self._status(test, number, 1, stream=f"\n{test.class_name}:")
            if not self._wait(test.seconds):
                return self._ended()
            if test.outcome == "crash":
                self._crash(test)
                return self._ended()
            self.ran += 1
            if test.outcome == "fail":
                self.failures.append(test)
                error = f"\nError in {test.method}({test.class_name}):\n{test.trace}"
                self._status(test, number, -2, stream=error, stack=test.trace)
            else:
                self._status(test, number, 0, stream=".")
        self._finish(time.monotonic() - started)
        return 0

    def _wait(self, seconds: float) -> bool:
        """Let a test run; False when the run ended meanwhile (hang-up or target killed)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.inv.cancelled or not self._alive():
                return False
            time.sleep(POLL_SECONDS)
        return self._alive() and not self.inv.cancelled

    def _alive(self) -> bool:
        state = self.inv.device.state
        with state.lock:
            app = state.packages.get(self.target)
            return app is not None and app.pid == self.pid

    def _crash(self, test: SimTest) -> None:
        state = self.inv.device.state
        with state.lock:
            state.log(
                "crash",
                "E",
                "AndroidRuntime",
                f"FATAL EXCEPTION: main\nProcess: {self.target}, PID: {self.pid}\n{test.trace}",
                pid=self.pid,
            )
            state.kill(self.target, "crash")

    def _ended(self) -> int:
        if self.inv.cancelled:
            return 0  # nobody is reading; the app process stays, as on a phone
        self.inv.out("INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n")
        return 0

    def _status(
        self, test: SimTest, number: int, code: int, *, stream: str, stack: str | None = None
    ) -> None:
        if not self.raw:
            return
        values = {
            "class": test.class_name,
            "current": str(number),
            "id": "AndroidJUnitRunner",
            "numtests": str(len(self.tests)),
            "stream": stream,
            "test": test.method,
        }
        if stack is not None:
            values["stack"] = stack
        text = "".join(f"INSTRUMENTATION_STATUS: {k}={v}\n" for k, v in sorted(values.items()))
        self.inv.out(text + f"INSTRUMENTATION_STATUS_CODE: {code}\n")

    def _finish(self, seconds: float) -> None:
        summary = [f"\nTime: {seconds:.3f}"]
        if self.failures:
            count = len(self.failures)
            summary.append(f"There {'was' if count == 1 else 'were'} {count} failure(s):")
            for index, test in enumerate(self.failures, start=1):
                summary.append(f"{index}) {test.method}({test.class_name})\n{test.trace}")
            summary += ["FAILURES!!!", f"Tests run: {self.ran},  Failures: {count}", "", ""]
        else:
            summary += [f"OK ({self.ran} test{'' if self.ran == 1 else 's'})", "", ""]
        self.inv.out(
            "INSTRUMENTATION_RESULT: stream=\n"
            + "\n".join(summary)
            + "\nINSTRUMENTATION_CODE: -1\n"
        )
