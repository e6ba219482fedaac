"""Scenario files: the shipped default, a small custom one, and the errors a bad one gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.device.parsers import parse_ui_xml
from adbwire.errors import UsageError
from adbwire.testing.scenario import DEFAULT_SCENARIO, load_scenario
from tests.simulator.userland_harness import make_userland, run

SCREEN = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    '<node index="0" text="{text}" resource-id="{rid}" class="android.widget.Button" '
    'package="org.demo" content-desc="" checkable="false" checked="false" clickable="true" '
    'enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" '
    'password="false" selected="false" bounds="[0,0][720,1280]" /></hierarchy>'
)
MINIMAL = """
format = 1
[device]
width = 720
height = 1280
density = 320
home_screen = "one"
[properties]
"ro.product.model" = "Demo Phone"
"ro.build.version.sdk" = "26"
[[packages]]
name = "org.demo"
requested_permissions = ["android.permission.CAMERA"]
[[packages.activities]]
name = ".Main"
screen = "two"
launcher = true
[[screens]]
id = "one"
component = "org.demo/.Home"
hierarchy = "one.xml"
[[screens]]
id = "two"
component = "org.demo/.Main"
hierarchy = "two.xml"
[[transitions]]
from = "one"
tap = { resource_id = "org.demo:id/go" }
to = "two"
[[files]]
path = "/sdcard/hello.txt"
text = "hi\\n"
"""


def write_scenario(tmp_path: Path, text: str = MINIMAL) -> Path:
    (tmp_path / "one.xml").write_text(SCREEN.format(text="Go", rid="org.demo:id/go"))
    (tmp_path / "two.xml").write_text(SCREEN.format(text="Second", rid="org.demo:id/second"))
    path = tmp_path / "demo.toml"
    path.write_text(text)
    return path


def test_the_default_scenario_loads_and_is_consistent() -> None:
    scenario = load_scenario()
    assert scenario.source == DEFAULT_SCENARIO
    assert scenario.home_screen == "launcher"
    assert {"notes_list", "note_editor", "settings", "vault"} <= set(scenario.screens)
    notes = next(p for p in scenario.packages if p.name == "com.example.notes")
    crashing = [a for a in notes.activities if a.crash_log]
    assert len(crashing) == 1 and "FATAL" not in (crashing[0].crash_log or "")
    assert scenario.screens["vault"].secure
    assert scenario.screens["notes_list"].screenshot is not None


def test_a_custom_scenario_drives_the_userland(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path))
    userland = make_userland(tmp_path / "root", scenario)
    assert run(userland, "getprop ro.product.model").out == "Demo Phone\n"
    assert run(userland, "wm size").out == "Physical size: 720x1280\n"
    assert run(userland, "cat /sdcard/hello.txt").out == "hi\n"
    assert run(userland, "pm list packages").out == "package:org.demo\n"
    run(userland, "input tap 10 10")
    assert "org.demo/org.demo.Main" in run(userland, "dumpsys window | grep mCurrentFocus").out
    raw = run(userland, "screencap").raw
    assert len(raw) == 12 + 720 * 1280 * 4  # SDK 26: the header has no colour space


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("format = 1", "format = 2"), "format 2 is not supported"),
        (('home_screen = "one"', 'home_screen = "nope"'), "screen 'nope' (named in [device])"),
        (('to = "two"', 'to = "three"'), "transition to unknown screen 'three'"),
        (('screen = "two"', 'screen = "zero"'), "screen 'zero' is not defined"),
        (('hierarchy = "two.xml"', 'hierarchy = "missing.xml"'), "asset 'missing.xml'"),
        (("[device]", "[device]\ncolour = 1"), "[device]: unknown key(s) colour"),
        (('tap = { resource_id = "org.demo:id/go" }', 'key = "BACK"\nswipe = "up"'), "exactly one"),
        (("density = 320", "density = = 3"), "not valid TOML"),
        (('text = "hi\\n"', 'text = "hi"\n[[files]]\npath = "rel"\ntext = ""'), "must be absolute"),
    ],
)
def test_bad_scenarios_are_refused_with_a_reason(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    old, new = change
    assert old in MINIMAL
    path = write_scenario(tmp_path, MINIMAL.replace(old, new, 1))
    with pytest.raises(UsageError, match=r"scenario .*demo\.toml") as caught:
        load_scenario(path)
    assert message in str(caught.value)


def test_a_hierarchy_that_is_not_a_uiautomator_dump_is_refused(tmp_path: Path) -> None:
    path = write_scenario(tmp_path)
    (tmp_path / "two.xml").write_text("<hierarchy><node bounds='nope'/></hierarchy>")
    with pytest.raises(UsageError, match="no valid bounds"):
        load_scenario(path)


def test_a_screenshot_must_be_a_png(tmp_path: Path) -> None:
    path = write_scenario(
        tmp_path,
        MINIMAL.replace('hierarchy = "one.xml"', 'hierarchy = "one.xml"\nscreenshot = "one.xml"'),
    )
    with pytest.raises(UsageError, match="screenshot is not a PNG"):
        load_scenario(path)


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read it"):
        load_scenario(tmp_path / "absent.toml")


def test_a_dump_with_a_leading_newline_loads_as_the_device_parser_reads_it(
    tmp_path: Path,
) -> None:
    path = write_scenario(tmp_path)
    dump = SCREEN.format(text="Second", rid="org.demo:id/second")
    (tmp_path / "two.xml").write_text("\n" + dump)
    scenario = load_scenario(path)  # refused before: "XML declaration not at start"
    loaded = next(s for s in scenario.screens.values() if "Second" in s.hierarchy)
    assert loaded.hierarchy == dump
    assert [e.text for e in parse_ui_xml("\n" + dump).elements if e.text] == ["Second"]
