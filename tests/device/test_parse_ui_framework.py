"""Framework detection and system dialog detection on parsed UI trees."""

from __future__ import annotations

import pytest

from adbwire.device.parsers.ui_dialogs import detect_system_dialog
from adbwire.device.parsers.ui_framework import detect_framework
from adbwire.device.parsers.ui_xml import UiElement, parse_ui_xml
from tests.device_outputs import device_output_bytes


def real_dump(name: str) -> list[UiElement]:
    return list(parse_ui_xml(device_output_bytes(f"uiautomator_dump/{name}")).elements)


@pytest.mark.parametrize(
    ("name", "framework"),
    [
        ("compose_lingbook_1220x2656.xml", "compose"),
        ("flutter_termux_flutter_ide_1080x2400.xml", "flutter"),
        ("system_anr_dialog_quietlog.xml", "views"),
        ("views_youtube_1080x1794.xml", "views"),
    ],
)
def test_real_dumps(name: str, framework: str) -> None:
    report = detect_framework(real_dump(name))
    assert report.framework == framework
    assert report.reasons


def test_compose_test_tags_not_exposed_in_lingbook() -> None:
    report = detect_framework(real_dump("compose_lingbook_1220x2656.xml"))
    assert report.compose_test_tags_exposed is False  # no resource-id on any Compose node
    assert any("testTagsAsResourceId" in reason for reason in report.reasons)
    assert any("ComposeView" in reason for reason in report.reasons)
    views = detect_framework(real_dump("views_youtube_1080x1794.xml"))
    assert views.compose_test_tags_exposed is None


def node(cls: str, rid: str = "", text: str = "", extra: str = "", children: str = "") -> str:
    return (
        f'<node class="{cls}" resource-id="{rid}" text="{text}" package="com.x" '
        f'bounds="[0,0][100,100]" {extra}>{children}</node>'
    )


def tree(*nodes: str) -> list[UiElement]:
    decor = node(
        "android.widget.FrameLayout",
        children=node("android.widget.FrameLayout", "android:id/content", children="".join(nodes)),
    )
    return list(parse_ui_xml(f"<hierarchy>{decor}</hierarchy>").elements)


def test_compose_with_exposed_tags_inside_a_views_screen_is_mixed() -> None:
    compose = node(
        "androidx.compose.ui.platform.ComposeView",
        children=node("android.view.View", children=node("android.widget.Button", "login_button")),
    )
    toolbar = node("android.widget.TextView", "com.x:id/title", "Hello")
    report = detect_framework(tree(toolbar, compose))
    assert report.framework == "mixed"
    assert report.compose_test_tags_exposed is True
    only_compose = detect_framework(tree(compose))
    assert only_compose.framework == "compose"


def test_webview_even_while_empty() -> None:
    assert detect_framework(tree(node("android.webkit.WebView"))).framework == "webview"
    inside = node("android.webkit.WebView", children=node("android.view.View", text="Article"))
    assert detect_framework(tree(inside)).framework == "webview"


def test_named_flutter_host() -> None:
    host = node("io.flutter.embedding.android.FlutterView", children=node("android.view.View"))
    assert detect_framework(tree(host)).framework == "flutter"


def test_a_focusable_frame_with_an_image_is_not_flutter() -> None:
    # A Views card: focusable FrameLayout with one ImageView child of a different size.
    card = node(
        "android.widget.FrameLayout",
        extra='focusable="true" clickable="true"',
        children='<node class="android.widget.ImageView" bounds="[10,10][90,90]"/>',
    )
    assert detect_framework(tree(card)).framework == "views"


def test_a_focusable_frame_with_a_small_custom_view_is_not_flutter() -> None:
    # Same classes as Flutter's host, but the child is not as large as the frame.
    frame = node(
        "android.widget.FrameLayout",
        extra='focusable="true" clickable="true"',
        children='<node class="android.view.View" bounds="[10,10][90,90]"/>',
    )
    assert detect_framework(tree(frame)).framework == "views"


def test_nothing_on_screen() -> None:
    report = detect_framework(tree())
    assert report.framework == "unknown"
    assert detect_framework([]).framework == "unknown"


def test_anr_dialog_on_the_real_dump() -> None:
    dialog = detect_system_dialog(real_dump("system_anr_dialog_quietlog.xml"))
    assert dialog is not None
    assert dialog.kind == "anr"
    assert dialog.title == "Process system isn't responding"
    assert dialog.subject == "system"
    assert [button for button, _ in dialog.buttons] == ["aerr_close", "aerr_wait"]


@pytest.mark.parametrize(
    "name",
    [
        "compose_lingbook_1220x2656.xml",
        "flutter_termux_flutter_ide_1080x2400.xml",
        "views_youtube_1080x1794.xml",
    ],
)
def test_no_dialog_on_app_screens(name: str) -> None:
    assert detect_system_dialog(real_dump(name)) is None


def test_crash_dialog() -> None:
    def android(cls: str, rid: str, text: str) -> str:
        return (
            f'<node class="{cls}" package="android" resource-id="android:id/{rid}" text="{text}"/>'
        )

    xml = (
        "<hierarchy>"
        + android("android.widget.TextView", "alertTitle", "Unfortunately, Maps has stopped.")
        + android("android.widget.Button", "aerr_close", "Close app")
        + android("android.widget.Button", "aerr_app_info", "App info")
        + "</hierarchy>"
    )
    dialog = detect_system_dialog(parse_ui_xml(xml).elements)
    assert dialog is not None
    assert (dialog.kind, dialog.subject) == ("crash", "Maps")
    keeps = xml.replace("Unfortunately, Maps has stopped.", "Maps keeps stopping")
    keeps_dialog = detect_system_dialog(parse_ui_xml(keeps).elements)
    assert keeps_dialog is not None and keeps_dialog.subject == "Maps"
