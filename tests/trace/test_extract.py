"""What a trace keeps of a result: targets, the log slice, crashes, bounds, scrubbed secrets."""

from __future__ import annotations

from adbwire.mcp.trace import extract


def test_the_target_comes_from_a_point_a_path_or_an_element_line() -> None:
    assert extract.target({"x": 10, "y": 20, "screen_changed": True}) == {"point": [10, 20]}
    assert extract.target({"points": [540, 1800, 540, 600]}) == {"path": [540, 1800, 540, 600]}
    assert extract.target({"kind": "double_tap", "points": [5, 6]}) == {"point": [5, 6]}
    line = 'e22 ImageButton #fab desc:"New note" [855,2090][1017,2252] click'
    assert extract.target({"element": "e22", "target": line}) == {
        "bounds": [855, 2090, 1017, 2252],
        "element": line,
        "point": [936, 2171],
    }
    assert (
        extract.target({"x": True, "y": 1, "points": [1, 2, 3], "target": "e1 no bounds"}) is None
    )


def test_the_log_slice_comes_from_the_outcome_or_a_crash_error_with_what_was_left_out() -> None:
    outcome = {"screen_changed": True, "log": ["W Notes: slow", "E Notes: bad"], "log_more": 7}
    assert extract.log_slice(outcome) == ["W Notes: slow", "E Notes: bad", "\u2026 7 more lines"]
    crash = {
        "code": "app_crashed",
        "details": {"root_cause": "NPE", "outcome": {"log": ["E AndroidRuntime: FATAL"]}},
    }
    assert extract.log_slice({}, crash) == ["E AndroidRuntime: FATAL"]
    many = {"log": [f"line {n}" for n in range(500)]}
    kept = extract.log_slice(many)
    assert kept is not None and len(kept) == extract.MAX_LOG_LINES + 1
    assert kept[-1] == f"\u2026 {500 - extract.MAX_LOG_LINES} more lines"
    assert extract.log_slice({"log": []}) is None


def test_crashes_and_anrs_are_marked() -> None:
    assert extract.crashed({"code": "app_crashed"}, {})
    assert extract.crashed({"code": "app_not_responding"}, {})
    assert not extract.crashed({"code": "not_found"}, {})
    assert not extract.crashed(None, {"screen_changed": True})


def test_results_are_bounded_and_secrets_scrubbed_in_every_form() -> None:
    huge = {"text": "x" * 100_000, "items": list(range(1000)), "deep": {"a": {"b": {"c": {}}}}}
    kept = extract.bounded(huge)
    assert len(kept["text"]) < extract.MAX_STRING + 10 and kept["text"].endswith("(cut)")
    assert len(kept["items"]) == extract.MAX_ITEMS + 1
    secret = 'p4ss "word"'
    forms = extract.secret_values({"text": secret, "query": "Title"}, ("text",))
    assert forms == ['p4ss \\"word\\"', secret]
    seen = {"field": 'e8 EditText "p4ss \\"word\\""', "log": [f"typed {secret}"]}
    assert extract.scrub(seen, forms) == {
        "field": 'e8 EditText "<redacted>"',
        "log": ["typed <redacted>"],
    }
    assert extract.secret_values({"text": "ab"}, ("text",)) == []  # too short to search for
