"""am instrument -w -r: the status stream parser, on real runner output and hostile input."""

from __future__ import annotations

import random

import pytest

from adbwire.device.parsers.instrumentation import (
    MAX_VALUE_CHARS,
    CaseResult,
    CaseStarted,
    InstrumentationStream,
    parse_instrumentation,
    parse_instrumentation_list,
)
from tests.device_outputs import device_output


def test_a_failure_with_its_trace_among_passes() -> None:
    report = parse_instrumentation(device_output("am_instrument/composer_failed-test.txt"))
    assert [(t.method, t.outcome) for t in report.tests] == [
        ("test1", "failed"),
        ("test2", "passed"),
        ("test3", "passed"),
        ("test4", "passed"),
    ]
    failed = report.tests[0]
    assert failed.class_name == "com.example.test.TestClass"
    assert failed.message == "java.net.UnknownHostException: Test Exception"
    assert failed.trace is not None
    assert "at com.example.test.TestClass.test1(TestClass.kt:238)" in failed.trace
    assert report.expected == 4
    assert report.result_code == -1
    assert not report.success
    assert report.problems == ("1 test failed",)
    assert (report.count("passed"), report.count("failed")) == (3, 1)


def test_ignored_and_assumption_failures_are_skips_and_the_run_passes() -> None:
    ignored = parse_instrumentation(device_output("am_instrument/composer_ignored-test.txt"))
    assert [(t.method, t.outcome) for t in ignored.tests] == [
        ("test1", "passed"),
        ("test2", "skipped"),
    ]
    assert ignored.success
    assert ignored.runner_seconds == pytest.approx(10.073)
    assumption = parse_instrumentation(
        device_output("am_instrument/composer_assumption-violation.txt")
    )
    assert assumption.success
    assert assumption.tests[0].outcome == "skipped"
    assert assumption.tests[0].message is not None
    assert assumption.tests[0].message.startswith("org.junit.AssumptionViolatedException")
    assert assumption.runner_seconds is None  # its "Time:" is in Arabic-Indic digits


def test_junit_leaves_ignored_tests_out_of_its_ok_count() -> None:
    # AndroidJUnitRunner: 3 tests (ignored, assumption failure, pass), "OK (2 tests)"
    report = parse_instrumentation(
        device_output("am_instrument/ddmlib_ignored_assumption_pass.txt")
    )
    assert [t.outcome for t in report.tests] == ["skipped", "skipped", "passed"]
    assert report.expected == 3
    assert report.problems == ()
    assert report.runner_seconds == pytest.approx(0.676)


def test_an_ok_count_that_matches_neither_reading_is_a_problem() -> None:
    text = device_output("am_instrument/ddmlib_ignored_assumption_pass.txt")
    report = parse_instrumentation(text.replace("OK (2 tests)", "OK (1 test)"))
    assert report.problems == ("the runner says OK (1 tests), the stream reported 3",)


def test_a_crash_mid_test_fails_the_run_and_names_the_test() -> None:
    report = parse_instrumentation(device_output("am_instrument/composer_app-crash.txt"))
    assert not report.success
    assert [(t.name, t.outcome) for t in report.tests] == [
        ("com.example.test.TestClass#crashTest", "crashed")
    ]
    assert report.tests[0].message is not None
    assert "NullPointerException" in report.tests[0].message
    assert report.count("errored") == 1
    assert report.result_code == 0
    assert any("ended abnormally" in p for p in report.problems)
    assert any("not RESULT_OK" in p for p in report.problems)


def test_a_missing_runner_and_an_empty_run_are_not_successes() -> None:
    missing = parse_instrumentation(
        device_output("am_instrument/composer_unable-to-find-instrumentation-info.txt")
    )
    assert not missing.success
    assert missing.tests == ()
    assert any(p.startswith("Unable to find instrumentation info") for p in missing.problems)
    assert any("INSTRUMENTATION_FAILED" in p for p in missing.problems)
    empty = parse_instrumentation(device_output("am_instrument/composer_0-tests.txt"))
    assert empty.result_code == -1
    assert empty.problems == ("no test ran (check the class/method filter)",)


def block(method: str, code: int, stack: str | None = None) -> list[str]:
    lines = [
        "INSTRUMENTATION_STATUS: class=com.x.FooTest",
        "INSTRUMENTATION_STATUS: current=1",
        "INSTRUMENTATION_STATUS: numtests=1",
    ]
    if stack:
        lines.append(f"INSTRUMENTATION_STATUS: stack={stack}")
    lines += [f"INSTRUMENTATION_STATUS: test={method}", f"INSTRUMENTATION_STATUS_CODE: {code}"]
    return lines


PASS = [*block("a", 1), *block("a", 0)]
END_OK = ["INSTRUMENTATION_RESULT: stream=", "", "OK (1 test)", "", "INSTRUMENTATION_CODE: -1"]


def test_a_test_started_over_an_unfinished_one_marks_that_one_crashed() -> None:
    report = parse_instrumentation("\n".join([*block("a", 1), *block("b", 1),
                                              *block("b", 0), *END_OK]) + "\n")  # fmt: skip
    assert [(t.method, t.outcome) for t in report.tests] == [("a", "crashed"), ("b", "passed")]
    assert report.tests[0].message == "it never finished"
    assert report.count("errored") == 1 and not report.success


def test_a_trace_line_that_looks_like_am_s_own_error_is_part_of_the_trace() -> None:
    stack = "java.lang.AssertionError: x\nError: expected 2 notes\n\tat com.x.FooTest.a(Foo.kt:9)"
    end = ["INSTRUMENTATION_RESULT: stream=", "FAILURES!!!", "Tests run: 1,  Failures: 1",
           "INSTRUMENTATION_CODE: -1"]  # fmt: skip
    report = parse_instrumentation("\n".join([*block("a", 1), *block("a", -2, stack),
                                              *end]) + "\n")  # fmt: skip
    assert report.problems == ("1 test failed",)
    assert report.tests[0].trace is not None and "Error: expected 2" in report.tests[0].trace


@pytest.mark.parametrize(
    ("lines", "problem"),
    [
        (PASS + END_OK, None),
        (PASS, "without a final INSTRUMENTATION_CODE"),
        ([*PASS, "INSTRUMENTATION_CODE: 0"], "not RESULT_OK"),
        ([*PASS, "INSTRUMENTATION_RESULT: shortMsg=Process crashed.", *END_OK[-1:]], "Process"),
        ([*PASS, "INSTRUMENTATION_ABORTED: System has crashed.", *END_OK], "ABORTED"),
        ([*PASS, "INSTRUMENTATION_RESULT: stream=", "FAILURES!!!", *END_OK[-1:]], "FAILURES"),
        ([*PASS, "INSTRUMENTATION_RESULT: stream=", "OK (2 tests)", *END_OK[-1:]], "OK (2"),
        ([*block("a", 1), *END_OK], "FooTest#a never finished"),
        (PASS + block("b", 1) + block("b", 0) + END_OK, "announced 1 tests, 2 reported"),
        ([*block("a", 1), *block("a", -2, "java.lang.AssertionError: x"), *END_OK], "failed"),
    ],
)
def test_success_only_when_codes_and_result_agree(lines: list[str], problem: str | None) -> None:
    report = parse_instrumentation("\n".join(lines) + "\n")
    if problem is None:
        assert report.success, report.problems
    else:
        assert not report.success
        assert any(problem in p for p in report.problems), report.problems


def test_events_arrive_per_test_whatever_the_chunking() -> None:
    text = device_output("am_instrument/composer_failed-test.txt").replace("\n", "\r\n")
    whole = parse_instrumentation(text)
    for seed in range(5):
        rng = random.Random(seed)
        stream = InstrumentationStream()
        events: list[CaseStarted | CaseResult] = []
        at = 0
        while at < len(text):
            size = rng.randint(1, 300)
            events += stream.feed_text(text[at : at + size])
            at += size
        assert stream.report() == whole
        assert [type(e).__name__ for e in events] == ["CaseStarted", "CaseResult"] * 4
        started = [e for e in events if isinstance(e, CaseStarted)]
        assert [(e.method, e.current, e.total) for e in started][:2] == [
            ("test1", 1, 4),
            ("test2", 2, 4),
        ]


def test_hostile_streams_stay_bounded() -> None:
    huge_trace = "x" * (MAX_VALUE_CHARS * 3)
    many_lines = "\n".join("at y" for _ in range(50_000))
    text = "\n".join(
        [
            *block("a", 1),
            *block("a", -2, huge_trace + "\n" + many_lines),
            "INSTRUMENTATION_STATUS_CODE: notanumber",
            "INSTRUMENTATION_CODE: 99999999999999999999",
        ]
    )
    report = parse_instrumentation(text)
    trace = report.tests[0].trace
    assert trace is not None
    assert len(trace) <= MAX_VALUE_CHARS + 20
    assert trace.endswith("(cut)")
    assert not report.success
    assert any("unreadable" in p for p in report.problems)


def test_installed_instrumentations() -> None:
    listed = parse_instrumentation_list(
        "instrumentation:com.example.notes.test/androidx.test.runner.AndroidJUnitRunner "
        "(target=com.example.notes)\r\n"
        "instrumentation:com.android.shell.tests/.ShellTestRunner (target=com.android.shell)\n"
        "garbage line\n"
    )
    assert [(i.component, i.target_package) for i in listed] == [
        ("com.example.notes.test/androidx.test.runner.AndroidJUnitRunner", "com.example.notes"),
        ("com.android.shell.tests/com.android.shell.tests.ShellTestRunner", "com.android.shell"),
    ]


def test_a_cut_androidx_transcript_is_not_a_success_and_its_text_raises_nothing_else() -> None:
    # AndroidJUnitRunner (androidx, keys sorted), an Espresso failure whose stack holds blank
    # lines, "Caused by:" and "Error in" lines; the transcript stops before its status code.
    report = parse_instrumentation(device_output("am_instrument/pgreze_androidx_espresso_cut.txt"))
    assert [(t.method, t.outcome) for t in report.tests] == [("navigateToJava", "crashed")]
    assert report.problems == (
        "com.google.android.samples.dynamicfeatures.MainActivityTest#navigateToJava never finished",
        "the run ended without a final INSTRUMENTATION_CODE (cut off)",
        "the runner announced 2 tests, 1 reported",
    )
