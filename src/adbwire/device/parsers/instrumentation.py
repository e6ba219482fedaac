"""``am instrument -w -r``: the raw instrumentation status stream, read line by line.

The runner (AndroidJUnitRunner, the old InstrumentationTestRunner, Flutter's
integration_test on Android) reports each test as a bundle of ``INSTRUMENTATION_STATUS:
key=value`` lines closed by ``INSTRUMENTATION_STATUS_CODE: N`` (1 started, 0 passed, -1
error, -2 failed, -3 ignored, -4 assumption failure, 2 in progress), and the run as an
``INSTRUMENTATION_RESULT:`` bundle closed by ``INSTRUMENTATION_CODE: N`` (-1 is
Activity.RESULT_OK; 0 means the run ended abnormally, e.g. the process crashed). A value
goes on over the following lines until the next ``INSTRUMENTATION_`` line (stack traces,
the ``stream`` text).

`InstrumentationStream` takes lines as they arrive and says when a test starts or ends,
so a caller can report progress; `report()` says what happened. A run is a success only
when every signal agrees: the final code is RESULT_OK, nothing crashed or aborted, every
started test finished, none failed, the count matches ``numtests``, at least one test ran,
and the runner's own summary (``OK (N tests)`` / ``FAILURES!!!``) says the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device.parsers._text import lines_of

STATUS = "INSTRUMENTATION_STATUS: "
STATUS_CODE = "INSTRUMENTATION_STATUS_CODE: "
RESULT = "INSTRUMENTATION_RESULT: "
RESULT_CODE = "INSTRUMENTATION_CODE: "
RESULT_OK = -1
"""Activity.RESULT_OK: the instrumentation finished normally."""
MAX_VALUE_CHARS = 16 * 1024
"""A value (a stack trace, the runner's stream text) keeps this much, then says it was cut."""
CUT = "\n... (cut)"
MAX_TESTS = 100_000
"""Tests counted beyond this are not kept one by one (a hostile stream of starts)."""

START, IN_PROGRESS, OK, ERROR, FAILURE, IGNORED, ASSUMPTION_FAILURE = 1, 2, 0, -1, -2, -3, -4
_OUTCOMES = {
    OK: "passed",
    ERROR: "errored",
    FAILURE: "failed",
    IGNORED: "skipped",
    ASSUMPTION_FAILURE: "skipped",
}
_SUMMARY_OK = re.compile(r"^OK \((\d+) tests?\)", re.MULTILINE)
_SUMMARY_TIME = re.compile(r"^Time: ([0-9]+(?:[.,][0-9]+)?)\s*$", re.MULTILINE)
# Lines with which am itself says the run could not start or was cut short.
_RUN_PROBLEM = re.compile(
    r"(INSTRUMENTATION_FAILED: .*|INSTRUMENTATION_ABORTED: .*|^onError: .*|^Error: .*"
    r"|^Error type \d+.*)"
)


@dataclass(frozen=True)
class CaseResult:
    class_name: str
    method: str
    outcome: str
    """passed, failed, errored, skipped, or crashed (started, and the run ended under it)."""
    message: str | None = None
    trace: str | None = None

    @property
    def name(self) -> str:
        return f"{self.class_name}#{self.method}"


@dataclass(frozen=True)
class CaseStarted:
    class_name: str
    method: str
    current: int | None
    total: int | None


@dataclass(frozen=True)
class InstrumentationReport:
    tests: tuple[CaseResult, ...]
    expected: int | None
    """The runner's ``numtests``, when it said."""
    result_code: int | None
    """INSTRUMENTATION_CODE, None when the stream ended before it (cut off, killed)."""
    result: dict[str, str]
    problems: tuple[str, ...]
    """Why the run is not a success, in words; empty exactly when `success`."""
    runner_seconds: float | None
    """The runner's own ``Time:`` line."""
    dropped: int = 0
    """Tests beyond MAX_TESTS, counted but not kept."""

    @property
    def success(self) -> bool:
        return not self.problems

    def count(self, outcome: str) -> int:
        """Tests with this outcome; ``errored`` includes the test a crash ended."""
        wanted = ("errored", "crashed") if outcome == "errored" else (outcome,)
        return sum(1 for test in self.tests if test.outcome in wanted)


class _Bundle:
    """One bundle's values; the current key's value grows line by line, up to its cap."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.key: str | None = None
        self._parts: list[str] = []
        self._kept = 0
        self._cut = False

    def start(self, text: str) -> None:
        self.end_value()
        key, _, value = text.partition("=")
        self.key = key.strip()
        self._append(value)

    def add_line(self, line: str) -> bool:
        if self.key is None:
            return False
        self._append("\n" + line)
        return True

    def end_value(self) -> None:
        if self.key is not None:
            self.values[self.key] = "".join(self._parts) + (CUT if self._cut else "")
        self.key, self._parts, self._kept, self._cut = None, [], 0, False

    def _append(self, text: str) -> None:
        room = MAX_VALUE_CHARS - self._kept
        if len(text) > room:
            self._cut = True
            text = text[: max(room, 0)]
        if text:
            self._parts.append(text)
            self._kept += len(text)


class InstrumentationStream:
    """Feed it the output of ``am instrument -r`` line by line; it keeps the run's state."""

    def __init__(self) -> None:
        self._status = _Bundle()
        self._result = _Bundle()
        self._running: tuple[str, str] | None = None
        self._tests: list[CaseResult] = []
        self._dropped = 0
        self._ignored = 0
        self._expected: int | None = None
        self._result_code: int | None = None
        self._problems: list[str] = []
        self._partial = ""

    def feed_text(self, chunk: str) -> list[CaseStarted | CaseResult]:
        """Feed raw output (any split); returns the events of the lines it completed."""
        text = self._partial + chunk
        # Trailing "\r"s may be the start of "\r\n" or "\r\r\n": wait for the next chunk.
        kept = text.rstrip("\r")
        text, held = kept, text[len(kept) :]
        lines = lines_of(text)
        self._partial = lines.pop() + held
        events: list[CaseStarted | CaseResult] = []
        for line in lines:
            events.extend(self.feed_line(line))
        return events

    def feed_line(self, line: str) -> list[CaseStarted | CaseResult]:
        if line.startswith(STATUS):
            self._status.start(line[len(STATUS) :])
            return []
        if line.startswith(STATUS_CODE):
            bundle, self._status = self._status, _Bundle()
            bundle.end_value()
            code = _int(line[len(STATUS_CODE) :])
            return self._close_status(bundle.values, code)
        if line.startswith(RESULT):
            self._result.start(line[len(RESULT) :])
            return []
        if line.startswith(RESULT_CODE):
            self._result.end_value()
            self._result_code = _int(line[len(RESULT_CODE) :])
            if self._result_code is None:
                self._problems.append(f"unreadable final code: {line.strip()[:100]}")
            return []
        problem = _RUN_PROBLEM.search(line)
        if problem is not None and self._result.key is None and self._status.key is None:
            self._problems.append(problem.group(1).strip()[:500])
            return []
        if not self._status.add_line(line):
            self._result.add_line(line)
        return []

    def _close_status(
        self, values: dict[str, str], code: int | None
    ) -> list[CaseStarted | CaseResult]:
        numtests = _int(values.get("numtests", ""))
        if numtests is not None:
            self._expected = numtests
        class_name = values.get("class", "").strip().rstrip(":")
        method = values.get("test", "").strip()
        if code is None:
            self._problems.append("a status bundle ended with an unreadable code")
            return []
        if not method:
            if code == ERROR or "Error" in values:
                detail = (
                    values.get("Error") or values.get("stream") or "the runner reported an error"
                )
                self._problems.append(detail.strip()[:500])
            return []
        if code == START:
            events: list[CaseStarted | CaseResult] = []
            if self._running is not None and self._running != (class_name, method):
                events.append(self._finish(*self._running, "crashed", "it never finished", None))
            self._running = (class_name, method)
            current = _int(values.get("current", ""))
            events.append(CaseStarted(class_name, method, current, self._expected))
            return events
        if code == IN_PROGRESS:
            return []
        outcome = _OUTCOMES.get(code)
        if outcome is None:
            self._problems.append(f"{class_name}#{method}: unknown status code {code}")
            return []
        if self._running == (class_name, method):
            self._running = None
        if code == IGNORED:
            self._ignored += 1
        trace = values.get("stack", "").strip() or None
        message = trace.splitlines()[0] if trace else None
        return [self._finish(class_name, method, outcome, message, trace)]

    def _finish(
        self, class_name: str, method: str, outcome: str, message: str | None, trace: str | None
    ) -> CaseResult:
        result = CaseResult(class_name, method, outcome, message, trace)
        if len(self._tests) < MAX_TESTS:
            self._tests.append(result)
        else:
            self._dropped += 1
        return result

    def report(self) -> InstrumentationReport:
        """What the run amounts to, from everything fed so far (call it at the end)."""
        if self._partial:
            self.feed_line(self._partial)
            self._partial = ""
        self._result.end_value()
        tests = list(self._tests)
        result = dict(self._result.values)
        problems = list(self._problems)
        crash = " ".join(v for k in ("shortMsg", "longMsg") if (v := result.get(k, "").strip()))
        if self._running is not None:
            class_name, method = self._running
            why = crash or "the run ended while it was running"
            tests.append(CaseResult(class_name, method, "crashed", why[:500], None))
            problems.append(f"{class_name}#{method} never finished")
        if crash:
            problems.append(f"the run ended abnormally: {crash[:500]}")
        if self._result_code is None:
            problems.append("the run ended without a final INSTRUMENTATION_CODE (cut off)")
        elif self._result_code != RESULT_OK:
            problems.append(f"final code {self._result_code}, not RESULT_OK ({RESULT_OK})")
        counts = {o: sum(1 for t in tests if t.outcome == o) for o in ("failed", "errored")}
        for outcome, number in counts.items():
            if number:
                problems.append(f"{number} test{'s' if number > 1 else ''} {outcome}")
        ran = len(tests) + self._dropped
        if ran == 0 and not problems:
            problems.append("no test ran (check the class/method filter)")
        if self._expected is not None and ran != self._expected and ran:
            problems.append(f"the runner announced {self._expected} tests, {ran} reported")
        stream_text = result.get("stream", "")
        problems.extend(_summary_disagreements(stream_text, tests, ran, self._ignored))
        return InstrumentationReport(
            tests=tuple(tests),
            expected=self._expected,
            result_code=self._result_code,
            result=result,
            problems=tuple(dict.fromkeys(problems)),
            runner_seconds=_runner_seconds(result.get("stream", "")),
            dropped=self._dropped,
        )


def parse_instrumentation(text: str) -> InstrumentationReport:
    """The report of a whole ``am instrument -w -r`` transcript."""
    stream = InstrumentationStream()
    for line in lines_of(text):
        stream.feed_line(line)
    return stream.report()


def _summary_disagreements(
    summary: str, tests: list[CaseResult], reported: int, ignored: int
) -> list[str]:
    """JUnit's ``OK (N tests)`` counts the tests that ran: N leaves out @Ignore'd ones on
    AndroidJUnitRunner, though some runners count them; either is believed."""
    problems = []
    ok = _SUMMARY_OK.search(summary)
    bad = sum(1 for t in tests if t.outcome in ("failed", "errored", "crashed"))
    if ok is not None:
        said = int(ok.group(1))
        if bad:
            problems.append(f"the runner says OK ({said} tests) but {bad} did not pass")
        elif said not in (reported, reported - ignored) and tests:
            problems.append(f"the runner says OK ({said} tests), the stream reported {reported}")
    if "FAILURES!!!" in summary and not bad:
        problems.append("the runner reports FAILURES!!! that the status stream did not list")
    return problems


def _runner_seconds(summary: str) -> float | None:
    found = _SUMMARY_TIME.search(summary)
    if found is None:
        return None
    try:
        return float(found.group(1).replace(",", "."))
    except ValueError:  # pragma: no cover - the pattern only admits digits
        return None


def _int(text: str) -> int | None:
    text = text.strip()
    if not re.fullmatch(r"-?\d{1,9}", text):
        return None
    return int(text)


_LISTED = re.compile(r"^instrumentation:(\S+?)/(\S+)\s+\(target=([^)\s]+)\)\s*$")


@dataclass(frozen=True)
class InstalledInstrumentation:
    """A line of ``pm list instrumentation``: a test package, its runner and its target."""

    test_package: str
    runner: str
    target_package: str

    @property
    def component(self) -> str:
        return f"{self.test_package}/{self.runner}"


def parse_instrumentation_list(text: str) -> list[InstalledInstrumentation]:
    """``instrumentation:com.x.test/androidx.test.runner.AndroidJUnitRunner (target=com.x)``."""
    found = []
    for line in lines_of(text):
        match = _LISTED.match(line.strip())
        if match is not None:
            runner = match.group(2)
            if runner.startswith("."):
                runner = match.group(1) + runner
            found.append(InstalledInstrumentation(match.group(1), runner, match.group(3)))
    return found
