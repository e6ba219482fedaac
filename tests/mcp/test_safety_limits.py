"""Action tools stay within what an agent may do without asking: found by a review, each
case here was possible before (a property that moves adb, a read tool writing settings,
airplane mode stranding a network device, options smuggled in as names)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from adbwire.device.parsers import UiElement, parse_ui_xml
from adbwire.device.ui.actions import _verify
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.tools.system import _over_the_network
from adbwire.testing.userland import BufferIO
from tests.mcp.harness import connected, data_of, error_of, make_app, simulated


@pytest.mark.parametrize(
    "name", ["persist.adb.tcp.port", "service.adb.tcp.port", "sys.usb.config", "persist.x.y"]
)
async def test_set_property_refuses_what_could_cut_the_device_off(name: str) -> None:
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="standard"))
        async with connected(app) as client:
            error = error_of(await client.call_tool("set_property", {"name": name, "value": "1"}))
            assert error["code"] == "refused"
            value = data_of(await client.call_tool("get_property", {"name": name})).get("value")
        app.close()
    assert value != "1"


async def test_set_property_still_sets_debug_switches() -> None:
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="standard"))
        async with connected(app) as client:
            result = data_of(
                await client.call_tool("set_property", {"name": "debug.layout", "value": "true"})
            )
        app.close()
    assert result["value"] == "true"


@pytest.mark.parametrize("name", ["-x", "--help"])
async def test_names_cannot_be_options(name: str) -> None:
    app = make_app([])
    async with connected(app) as client:
        error = error_of(await client.call_tool("get_property", {"name": name}))
    assert error["code"] == "invalid_arguments"


async def test_a_read_only_server_does_not_turn_animations_off() -> None:
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="read-only"))
        async with connected(app) as client:
            error = error_of(await client.call_tool("ui_tree", {"disable_animations": True}))
        io = BufferIO()
        device.userland.run("settings get global animator_duration_scale", io)
        app.close()
    assert error["code"] == "refused"
    assert io.stdout.strip() != b"0"


@dataclass
class FakeTransport:
    kind: str
    address: str


@pytest.mark.parametrize(
    ("kind", "address", "network"),
    [
        ("tcp", "192.168.1.20:5555", True),
        ("tcp", "phone.lan:5555", True),
        ("tcp", "127.0.0.1:5555", False),
        ("tcp", "localhost:5555", False),
        ("tcp", "[::1]:5555", False),
        ("usb", "0123456789ABCDEF", False),
        ("replay", "replay:x.jsonl", False),
    ],
)
def test_airplane_mode_knows_which_links_it_would_cut(
    kind: str, address: str, network: bool
) -> None:
    assert _over_the_network(FakeTransport(kind, address)) is network  # type: ignore[arg-type]


def field(text: str) -> UiElement:
    xml = (
        f'<hierarchy rotation="0"><node index="0" text="{text}" resource-id="" '
        'class="android.widget.EditText" package="p" content-desc="" checkable="false" '
        'checked="false" clickable="true" enabled="true" focusable="true" focused="true" '
        'scrollable="false" long-clickable="true" password="false" selected="false" '
        'bounds="[0,0][10,10]" /></hierarchy>'
    )
    return parse_ui_xml(xml).elements[0]


@pytest.mark.parametrize(
    ("before", "after", "typed", "verified"),
    [
        ("banana", "bananaa", "a", True),
        ("banana", "banana", "a", False),  # nothing typed, though "a" is in the field
        ("", "hello", "hello", True),
        ("old", "oldnew", "new", True),
        ("", "line1line2", "line1\nline2", True),  # Enter in a single-line field
        ("", "hel", "hello", False),
    ],
)
def test_typed_text_is_verified_against_what_was_there(
    before: str, after: str, typed: str, verified: bool
) -> None:
    assert _verify(field(after), typed, before)[0] is verified
