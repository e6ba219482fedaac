"""The viewer page in a real browser: headless Chromium loads it from a file:// URL; the test
reads the DOM the page's script built, drives it with the keyboard, checks that nothing left
the page, and saves a screenshot of it (``$ADBWIRE_ARTIFACTS`` or build/test-artifacts)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.trace.browser import Browser, find_chromium
from tests.trace.flows import FLOW, HOSTILE

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium on this host (Debian: apt-get install chromium, as .ci/run does)",
)
ROOT = Path(__file__).resolve().parents[2]
TILES = """JSON.stringify([...document.querySelectorAll('#filmstrip .step')].map(t => ({
  index: Number(t.dataset.index), tool: t.dataset.tool,
  classes: [...t.classList].filter(c => c !== 'selected').sort(),
  badge: (t.querySelector('.badge') || {}).textContent || null})))"""
DETAIL = """JSON.stringify({
  index: Number(document.getElementById('detail').dataset.index),
  heading: document.querySelector('#detail h2').textContent,
  screens: [...document.querySelectorAll('#detail .screen-figure')].map(f => ({
    moment: f.dataset.moment,
    loaded: !!f.querySelector('img') && f.querySelector('img').complete &&
      f.querySelector('img').naturalWidth > 0,
    rects: [...f.querySelectorAll('rect.mark-bounds')].map(r =>
      ['x', 'y', 'width', 'height'].map(a => Number(r.getAttribute(a)))),
    points: [...f.querySelectorAll('circle.mark-point')].map(c =>
      [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]),
    paths: f.querySelectorAll('line.mark-path').length,
    missing: (f.querySelector('.missing') || {}).textContent || null})),
  error: (document.querySelector('#detail .error') || {}).textContent || null,
  sections: [...document.querySelectorAll('#detail section h3')].map(h => h.textContent)})"""


@pytest.fixture(scope="module")
def browser(viewer_page: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    assert CHROMIUM is not None
    home = tmp_path_factory.mktemp("chromium")
    opened = Browser(CHROMIUM, home / "profile", home / "chromium.log")
    try:
        opened.open(viewer_page.as_uri())
        assert opened.evaluate("document.body.dataset.ready") == "true"
        yield opened
    finally:
        opened.close()


def tiles(browser: Browser) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(browser.evaluate(TILES))
    return found


def detail(browser: Browser) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(browser.evaluate(DETAIL))
    return found


def test_every_step_is_on_the_filmstrip_and_failures_and_the_crash_stand_out(
    browser: Browser,
) -> None:
    shown = tiles(browser)
    assert [t["tool"] for t in shown] == [tool for tool, _ in FLOW] + ["run_shell"]
    assert [t["index"] for t in shown] == [*range(1, len(FLOW) + 1), 99]
    marked = {t["index"]: (t["classes"], t["badge"]) for t in shown if t["badge"]}
    assert marked == {
        7: (["failed", "step"], "FAILED"),
        8: (["crash", "failed", "step"], "CRASH"),
    }
    summary = browser.evaluate("document.getElementById('summary').textContent")
    assert "9 steps" in summary and "2 failed" in summary and "1 crash" in summary
    # The page opens on the first failed step.
    assert detail(browser)["index"] == 7


def test_a_step_shows_its_screens_with_the_target_drawn_and_keys_move_between_steps(
    browser: Browser,
) -> None:
    browser.key("Home")
    assert detail(browser)["index"] == 1
    browser.key("ArrowRight")
    browser.key("ArrowRight")
    tapped = detail(browser)
    assert tapped["index"] == 3 and tapped["heading"].startswith("#3 tap_element")
    before, after = tapped["screens"]
    assert (before["moment"], after["moment"]) == ("before", "after")
    assert before["loaded"] and after["loaded"]
    # The element's bounds [855,2090][1017,2252] and its centre, in device pixels.
    assert before["rects"] == [[855, 2090, 162, 162]] and before["points"] == [[936, 2171]]
    assert after["rects"] == [] and after["points"] == [[936, 2171]]  # where the finger was
    assert {"element", "arguments", "result"} <= set(tapped["sections"])
    browser.key("ArrowRight")
    browser.key("ArrowRight")
    browser.key("ArrowRight")
    swiped = detail(browser)
    assert swiped["index"] == 6 and [s["paths"] for s in swiped["screens"]] == [1, 0]
    browser.key("f")
    failed = detail(browser)
    assert failed["index"] == 7 and failed["error"].startswith("not_found:")
    browser.key("f")
    crashed = detail(browser)
    assert crashed["index"] == 8 and "app crashed" in crashed["heading"]
    assert crashed["error"].startswith("app_crashed:")
    browser.key("End")
    assert detail(browser)["index"] == 99
    browser.key("ArrowLeft")
    assert detail(browser)["index"] == 8


def test_text_from_a_trace_stays_text_and_no_request_leaves_the_page(
    browser: Browser, viewer_page: Path
) -> None:
    page = viewer_page
    browser.key("End")
    assert browser.evaluate("document.querySelector('#detail .summary').textContent") == HOSTILE
    assert browser.evaluate("document.title").startswith("adbwire trace")
    assert browser.evaluate("document.querySelectorAll('img[src^=\"http\"]').length") == 0
    requests = browser.requests()
    assert requests[0] == page.as_uri()
    assert all(url == page.as_uri() or url.startswith("data:image/") for url in requests)
    resources = browser.evaluate(
        "JSON.stringify(performance.getEntriesByType('resource').map(e => e.name))"
    )
    assert all(name.startswith("data:") for name in json.loads(resources))
    errors = [e for e in browser.events if e["method"] == "Runtime.exceptionThrown"]
    assert errors == []


def test_a_screenshot_of_the_page_is_saved_as_an_artifact(browser: Browser) -> None:
    browser.key("Home")
    browser.key("ArrowRight")
    browser.key("ArrowRight")
    png = browser.screenshot()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    folder = Path(os.environ.get("ADBWIRE_ARTIFACTS") or ROOT / "build" / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trace-viewer.png").write_bytes(png)
