"""The accessibility audit (on a hand-made screen, real dumps and the simulator) and the
debug bundle whose sections fail on their own."""

from __future__ import annotations

from adbwire.device import apps
from adbwire.device.parsers import UiHierarchy, parse_ui_xml
from adbwire.device.ui import actions as ui_actions
from adbwire.device.ui.audit import FIXES, audit_hierarchy, min_target_px
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from tests.device.ui_sim import simulated
from tests.device_outputs import device_output_bytes


def node(cls: str, bounds: str, children: str = "", **attrs: str) -> str:
    extra = " ".join(f'{k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<node class="{cls}" bounds="{bounds}" enabled="true" {extra}>{children}</node>'


SCREEN = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    + node(
        "android.widget.FrameLayout",
        "[0,0][1080,2400]",
        node("android.widget.ImageButton", "[0,0][100,100]", clickable="true")  # e1
        + node("android.widget.Button", "[0,200][500,400]", clickable="true", text="Delete")
        + node("android.widget.Button", "[500,200][1000,400]", clickable="true", text="Delete")
        + node("android.widget.ImageView", "[0,500][300,800]")  # e4: decorative or not?
        + node(
            "android.widget.Button",
            "[0,900][600,1100]",
            node("android.widget.ImageView", "[0,900][100,1000]"),  # e6, inside a label
            clickable="true",
            content_desc="Share",
        )
        + node(
            "androidx.compose.ui.platform.ComposeView",
            "[0,1200][1080,2400]",
            node("android.view.View", "[0,1200][40,1240]", clickable="true"),  # e8
        ),
    )
    + "</hierarchy>"
)


def findings(tree: UiHierarchy, density: int | None = 420) -> dict[str, list[tuple[str, ...]]]:
    report = audit_hierarchy(tree, density=density, framework="mixed")
    found: dict[str, list[tuple[str, ...]]] = {}
    for finding in report.findings:
        found.setdefault(finding.kind, []).append(finding.element_ids)
        assert finding.fix == FIXES[finding.kind][finding.toolkit]
    return found


def test_every_check_on_a_hand_made_screen() -> None:
    tree = parse_ui_xml(SCREEN)
    assert findings(tree) == {
        "unlabelled_clickable": [("e1",), ("e8",)],
        "small_touch_target": [("e1",), ("e8",)],
        "duplicate_label": [("e2", "e3")],
        "unlabelled_image": [("e4",)],
    }
    report = audit_hierarchy(tree, density=420, framework="mixed")
    toolkits = {f.element_ids: f.toolkit for f in report.findings}
    assert toolkits[("e1",)] == "views" and toolkits[("e8",)] == "compose"
    assert "Modifier.minimumInteractiveComponentSize()" in next(
        f.fix for f in report.findings if f.kind == "small_touch_target" and f.toolkit == "compose"
    )
    assert (report.checked, report.min_target_px) == (5, 126)


def test_the_real_density_decides_what_is_small() -> None:
    tree = parse_ui_xml(SCREEN)
    assert min_target_px(160) == 48 and min_target_px(420) == 126
    assert findings(tree, 160)["small_touch_target"] == [("e8",)]  # 100 px is 100 dp there
    assert "small_touch_target" not in findings(tree, None)


def real(name: str) -> UiHierarchy:
    return parse_ui_xml(device_output_bytes(f"uiautomator_dump/{name}"))


def test_real_views_dump() -> None:
    tree = real("views_youtube_1080x1794.xml")
    found = findings(tree, 420)
    small = {ids[0] for ids in found["small_touch_target"]}
    more = [e.id for e in tree.elements if e.content_desc == "More actions"]
    assert set(more) <= small  # 47x47 px menu buttons
    assert tuple(more) in found["duplicate_label"]


def test_real_compose_dump() -> None:
    tree = real("compose_lingbook_1220x2656.xml")
    report = audit_hierarchy(tree, density=480, framework="compose")
    duplicates = [f for f in report.findings if f.kind == "duplicate_label"]
    assert {len(f.element_ids) for f in duplicates} == {3}  # 删除 and 重命名, once per card
    assert all(f.toolkit == "compose" for f in report.findings)


def test_audit_on_the_simulator_uses_its_density() -> None:
    with simulated("settings") as sim:
        report, framework = ui_actions.accessibility_audit(sim.client)
        assert framework == "compose" and report.density == 420
        kinds = {(f.kind, f.element_ids) for f in report.findings}
        # the switches are checkable, unlabelled, and 84 px (32 dp) tall
        assert ("unlabelled_clickable", ("e13",)) in kinds
        assert ("small_touch_target", ("e17",)) in kinds


def test_debug_context_sections_fail_on_their_own() -> None:
    def broken_logcat(inv: Invocation, command: CommandFn) -> int:
        inv.err("logcat: Unable to open log device '/dev/log/main': Permission denied\n")
        return 1

    with simulated() as sim:
        apps.launch(sim.client, "com.example.notes")
        sim.userland.hooks["logcat"] = broken_logcat
        found = ui_actions.debug_context(sim.client, screenshot=True)
        assert set(found.errors) == {"logcat"} and "Permission denied" in found.errors["logcat"]
        assert found.focus is not None and found.focus.package == "com.example.notes"
        assert found.ui is not None and found.log_entries is None
        assert found.screenshot is not None and found.screenshot.image is not None


def test_debug_context_filters_the_log_to_the_app_in_front() -> None:
    with simulated() as sim:
        apps.launch(sim.client, "com.example.notes")
        found = ui_actions.debug_context(sim.client, log_lines=5)
        assert found.errors == {} and found.log_package == "com.example.notes"
        assert found.log_entries is not None and len(found.log_entries) <= 5
        pids = {pid for pid in sim.userland.state.pids_of("com.example.notes")}
        assert all(entry.pid in pids for entry in found.log_entries)
