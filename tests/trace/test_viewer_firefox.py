"""The viewer page in headless Firefox (Marionette): the same page as the Chromium test,
opened from its file:// URL, read through the DOM its script built and driven by keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.trace.firefox import Firefox, find_firefox
from tests.trace.flows import FLOW, HOSTILE

FIREFOX = find_firefox()
pytestmark = pytest.mark.skipif(
    FIREFOX is None, reason="no Firefox on this host (Debian: apt-get install firefox-esr)"
)


@pytest.fixture(scope="module")
def firefox(viewer_page: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Firefox]:
    assert FIREFOX is not None
    home = tmp_path_factory.mktemp("firefox")
    opened = Firefox(FIREFOX, home / "profile", home / "firefox.log")
    try:
        opened.open(viewer_page.as_uri())
        yield opened
    finally:
        opened.close()


def detail_index(firefox: Firefox) -> int:
    return int(firefox.evaluate("return document.getElementById('detail').dataset.index"))


def test_the_page_works_in_firefox(firefox: Firefox) -> None:
    assert firefox.evaluate("return document.body.dataset.ready") == "true"
    tools = firefox.evaluate(
        "return [...document.querySelectorAll('#filmstrip .step')].map(t => t.dataset.tool)"
    )
    assert tools == [tool for tool, _ in FLOW] + ["run_shell"]
    marked = firefox.evaluate(
        "return [...document.querySelectorAll('#filmstrip .failed')]"
        ".map(t => [t.dataset.index, t.classList.contains('crash')])"
    )
    assert marked == [["7", False], ["8", True]]
    assert detail_index(firefox) == 7  # opens on the first failed step
    firefox.key("Home")
    firefox.key("ArrowRight")
    firefox.key("ArrowRight")
    assert detail_index(firefox) == 3
    loaded = firefox.evaluate(
        "return [...document.querySelectorAll('#detail .screen img')]"
        ".map(i => i.complete && i.naturalWidth > 0)"
    )
    assert loaded == [True, True]
    assert firefox.evaluate("return document.querySelectorAll('#detail rect').length") == 1
    firefox.key("f")
    assert detail_index(firefox) == 7
    firefox.key("End")
    assert firefox.evaluate("return document.querySelector('#detail .summary').textContent") == (
        HOSTILE
    )
    sources = firefox.evaluate(
        "return [...document.querySelectorAll('[src],[href]')]"
        ".map(e => e.getAttribute('src') || e.getAttribute('href'))"
    )
    assert sources and all(source.startswith("data:image/") for source in sources)
    resources = firefox.evaluate("return performance.getEntriesByType('resource').map(e => e.name)")
    assert all(name.startswith("data:") for name in resources)
