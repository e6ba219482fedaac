"""Fuzz the `uiautomator dump` parser with mutated real dumps: a hierarchy or a
DeviceCommandError, with no more elements than the input has tags."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adbwire.device.parsers.ui_framework import detect_framework
from adbwire.device.parsers.ui_xml import parse_ui_xml
from adbwire.errors import DeviceCommandError
from tests.device_outputs import device_output, ui_dump_names
from tests.fuzz.strategies import FUZZ, mutated_text

SEEDS = [device_output(f"uiautomator_dump/{name}") for name in ui_dump_names()]
SEEDS.append('<?xml version="1.0"?><hierarchy rotation="0"><node text="x"/></hierarchy>')

HOSTILE_FRAGMENTS = [
    '<!DOCTYPE x [<!ENTITY a "aaaa">]>',
    "&#0;&#x1;&#xD800;&#xFFFE;&#1114112;",
    "\x00\x1b[2J\ufffe",
    '<node bounds="[0,0][99999999999999999999,1]" index="-1"/>',
    '<node bounds="[a,b][c,d]" rotation="٣"/>',
]


@FUZZ
@given(
    mutated_text(SEEDS, max_edits=6)
    | st.tuples(
        st.sampled_from(SEEDS), st.sampled_from(HOSTILE_FRAGMENTS), st.integers(0, 5000)
    ).map(lambda t: t[0][: t[2]] + t[1] + t[0][t[2] :])
)
def test_ui_dump_parses_or_raises_device_command_error(text: str) -> None:
    try:
        hierarchy = parse_ui_xml(text)
    except DeviceCommandError:
        return
    assert len(hierarchy.elements) <= text.count("<")
    for element in hierarchy.elements:
        assert element.depth < len(hierarchy.elements)
    detect_framework(list(hierarchy.elements))  # the next consumer copes as well
