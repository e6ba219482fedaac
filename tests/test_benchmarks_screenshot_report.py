"""The benchmark report renders the `screenshot` section (issue #25), which was only in the
JSON, and leaves it out when the section did not run."""

from __future__ import annotations

from typing import Any

from benchmarks import report


def row(median: float, cpu: float, **extra: float) -> dict[str, float]:
    return {"median_ms": median, "p95_ms": median * 2, "cpu_ms": cpu, **extra}


SCREENSHOT: dict[str, Any] = {
    "side_by_side": {
        "fetch": row(15.0, 6.0),
        "take_screenshot": row(27.0, 20.0, vs_fetch=1.8),
        "path_chosen": "raw",
    },
    "host_steps": {
        "frame": [1080, 2400],
        "image": [540, 1200, "png", 13393],
        "png_pillow_bytes": 4245,
        "steps_cpu_ms": {"halve (box reduction of the frame)": 4.9},
        "after_last_byte_cpu_ms": 0.8,
    },
    "slow_link": {
        "link_mbps": 40,
        "encode_ms": 300,
        "link_rate_measured_mbps": 44.5,
        "always raw": row(2030.0, 1.0),
        "adaptive": row(480.0, 1.0),
        "path_chosen": "png",
        "speedup": 4.2,
    },
}


def test_the_screenshot_section_is_in_the_report() -> None:
    meta = {"quick": True, "started": "now", "machine": "here"}
    text = report.markdown({"meta": meta, "targets": [], "screenshot": SCREENSHOT})
    assert "\n### 6b. Screenshots (1080x2400 default screen)\n" in text
    assert "| take_screenshot | 27.0 | 54.0 | 1.80 | 20.0 |" in text
    assert "| halve (box reduction of the frame) | 4.9 |" in text
    assert "| of that, left after the last chunk | 0.8 |" in text
    assert "adaptive (png) 480 ms: 4.2x" in text


def test_a_section_that_did_not_run_is_left_out_and_a_pending_one_says_so() -> None:
    assert report._screenshot({}) == []
    assert "not run here" in report._screenshot({"pending": "not run here"})
