"""dumpsys window focus, wm size and wm density."""

from __future__ import annotations

from adbwire.device.parsers.component import Component
from adbwire.device.parsers.window import (
    Size,
    parse_density,
    parse_display_size,
    parse_window_display,
    parse_window_focus,
)
from tests.device_outputs import device_output


def test_recent_format_play_store_in_focus() -> None:
    text = device_output("dumpsys_window/pixel_like_1080x2340_displays.txt")
    focus = parse_window_focus(text)
    assert focus.current_focus == "com.android.vending/com.android.vending.AssetBrowserActivity"
    assert focus.focused_app == "com.android.vending/.AssetBrowserActivity"
    assert focus.package == "com.android.vending"
    assert focus.activity == "com.android.vending.AssetBrowserActivity"
    assert focus.app_has_focus is True
    assert focus.dialog is None
    display = parse_window_display(text)
    assert display is not None
    assert display.initial == Size(1080, 2340)
    assert display.density == 440
    assert display.app == Size(1080, 2160)


def test_android_4_format_without_user_and_with_paused_suffix() -> None:
    text = device_output("dumpsys_window/android4x_windows_sampleui.txt")
    focus = parse_window_focus(text)
    assert focus.current_focus == (
        "com.dtmilano.android.sampleui/com.dtmilano.android.sampleui.MainActivity"
    )
    assert focus.focus_component == Component(
        "com.dtmilano.android.sampleui", "com.dtmilano.android.sampleui.MainActivity"
    )
    assert focus.focused_app == "com.dtmilano.android.sampleui/.MainActivity"  # in a token
    display = parse_window_display(text)
    assert display is not None
    assert (display.initial, display.density) == (Size(480, 800), None)


def test_notification_shade_over_an_app_is_not_the_app_having_focus() -> None:
    # The MTK activities dump also carries the window manager state of a sleeping device.
    focus = parse_window_focus(
        device_output("dumpsys_activity_activities/mtk_camera_task_format.txt")
    )
    assert focus.current_focus == "NotificationShade"
    assert focus.focus_component is None
    assert focus.focused_app == "com.mediatek.camera/.CameraLauncher"
    assert focus.package == "com.mediatek.camera"
    assert focus.app_has_focus is False


def test_anr_and_crash_dialog_windows() -> None:
    anr = parse_window_focus(
        "  mCurrentFocus=Window{4b1c2d u0 Application Not Responding: com.example.app}\n"
        "  mFocusedApp=ActivityRecord{9f u0 com.example.app/.MainActivity t31}\n"
    )
    assert (anr.dialog, anr.dialog_process) == ("anr", "com.example.app")
    assert anr.app_has_focus is False
    crash = parse_window_focus("mCurrentFocus=Window{1 u0 Application Error: com.example.app}")
    assert (crash.dialog, crash.dialog_process) == ("crash", "com.example.app")


def test_null_empty_and_crlf() -> None:
    nothing = parse_window_focus("  mCurrentFocus=null\r\n  mFocusedApp=null\r\n")
    assert (nothing.current_focus, nothing.focused_app, nothing.package) == (None, None, None)
    assert parse_window_focus("").current_focus is None
    crlf = parse_window_focus("  mCurrentFocus=Window{a u0 com.x/com.x.Main}\r\n")
    assert crlf.current_focus == "com.x/com.x.Main"
    assert parse_window_display("") is None


def test_wm_size() -> None:
    plain = parse_display_size("Physical size: 1080x2400\n")
    assert plain.physical == Size(1080, 2400)
    assert plain.override is None
    assert plain.effective == Size(1080, 2400)
    overridden = parse_display_size("Physical size: 1080x2400\r\nOverride size: 720x1600\r\n")
    assert overridden.effective == Size(720, 1600)
    assert parse_display_size("").effective is None
    assert parse_display_size("Error: no such display\n").physical is None


def test_wm_density() -> None:
    assert parse_density("Physical density: 440\n").effective == 440
    both = parse_density("Physical density: 440\nOverride density: 320\n")
    assert (both.physical, both.override, both.effective) == (440, 320, 320)
    assert parse_density("Physical dens").effective is None  # truncated


def test_a_dump_without_current_focus_falls_back_to_the_ime_target() -> None:
    focus = parse_window_focus(
        device_output("dumpsys_window/android12_windows_no_current_focus_excerpt.txt")
    )
    launcher = "com.android.launcher3/com.android.launcher3.uioverrides.QuickstepLauncher"
    assert focus.current_focus == launcher and focus.source == "imeInputTarget"
    assert focus.package == "com.android.launcher3"
    assert focus.focused_app == "com.android.launcher3/.uioverrides.QuickstepLauncher"
    # mObscuringWindow (the wallpaper) in the same dump is not taken for the focus


def test_fallback_order_and_null_current_focus() -> None:
    text = (
        "  mCurrentFocus=null\n"
        "  mTopFullscreenOpaqueWindowState=Window{1a u0 com.b/com.b.Top}\n"
        "  imeLayeringTarget in display# 0 Window{2b u0 com.a/com.a.Main}\n"
    )
    focus = parse_window_focus(text)
    assert (focus.current_focus, focus.source) == ("com.a/com.a.Main", "imeLayeringTarget")
    old = parse_window_focus("  mInputMethodTarget=Window{41f u0 com.c/com.c.Edit}\n")
    assert (old.package, old.source) == ("com.c", "mInputMethodTarget")
    assert parse_window_focus("  imeLayeringTarget in display# 0 null\n").current_focus is None
    real = parse_window_focus("  mCurrentFocus=Window{9 u0 com.d/com.d.X}\n")
    assert real.source == "mCurrentFocus" and real.focused_app is None  # no guessing then


ZILLOW_POPUP = "dumpsys_window/zillow_popup_windows_no_current_focus.txt"
ZILLOW_APP = Component(
    "com.zillow.android.zillowmap", "com.zillow.android.appshell.MainTabActivity"
)


def test_an_ime_target_without_an_app_falls_back_to_the_top_visible_app_window() -> None:
    """A real Android 15-era dump with neither mCurrentFocus nor mFocusedApp, whose IME
    targets name a "Pop-Up Window": the app comes from the top visible window that has an
    mActivityRecord (the pop-up's own), not from the hidden launcher or settings below."""
    focus = parse_window_focus(device_output(ZILLOW_POPUP))
    assert (focus.current_focus, focus.source) == ("Pop-Up Window", "imeInputTarget")
    assert focus.focus_component is None and focus.app_component == ZILLOW_APP
    assert focus.package == "com.zillow.android.zillowmap"
    assert focus.focused_app == "com.zillow.android.zillowmap/" + ZILLOW_APP.class_name


def test_a_window_list_alone_gives_its_top_visible_app_window() -> None:
    text = device_output(ZILLOW_POPUP)
    without_targets = "\n".join(line for line in text.splitlines() if "imeL" not in line)
    without_targets = "\n".join(
        line for line in without_targets.splitlines() if " in display# " not in line
    )
    focus = parse_window_focus(without_targets)
    assert (focus.current_focus, focus.source) == ("Pop-Up Window", "visible app window")
    assert focus.app_component == ZILLOW_APP
    # windows hidden (isVisible=false) or without an activity are passed over
    hidden = without_targets.replace("isVisible=true", "isVisible=false").replace(
        "isOnScreen=true", "isOnScreen=false"
    )
    assert parse_window_focus(hidden).current_focus is None


def test_android_10_window_list_without_focus_or_ime_lines() -> None:
    """A real API 29 emulator `dumpsys window windows`: no mCurrentFocus, no IME target; the
    top visible app window (its mAppToken names the activity) is Settings, above the hidden
    launcher windows."""
    focus = parse_window_focus(device_output("dumpsys_window/emulator_api29_settings_windows.txt"))
    assert (focus.current_focus, focus.source) == (
        "com.android.settings/com.android.settings.Settings",
        "visible app window",
    )
    assert focus.focused_app == "com.android.settings/.Settings"


def test_android_14_window_list_without_current_focus() -> None:
    focus = parse_window_focus(device_output("dumpsys_window/emulator_api34_settings_windows.txt"))
    assert (focus.package, focus.source) == ("com.android.settings", "imeInputTarget")
    assert focus.focused_app == "com.android.settings/.Settings"
