"""Orientation, dark mode, font scale, app locale and radios: each written, read back, and put
back by the ledger; the read-back parsers on real output."""

from __future__ import annotations

import pytest

from adbwire.device.errors import NotFoundError, UnsupportedError, VerificationError
from adbwire.device.parsers.device_settings import (
    parse_app_locales,
    parse_display_rotation,
    parse_night_mode,
)
from adbwire.device.settings import appearance, locale, network, orientation
from adbwire.device.settings.ledger import RestoreLedger
from adbwire.errors import UsageError
from tests.device.ui_sim import simulated
from tests.device_outputs import device_output

NOTES = "com.example.notes"


def test_rotation_from_real_dumps() -> None:
    assert (
        parse_display_rotation(device_output("dumpsys_window/pixel_like_1080x2340_displays.txt"))
        == 0
    )
    assert (
        parse_display_rotation(device_output("dumpsys_window/android4x_windows_sampleui.txt")) == 0
    )
    landscape = "  DisplayRotation\n    mRotation=1 mDeferredRotationPauseCount=0\n"
    assert parse_display_rotation(landscape) == 1
    assert parse_display_rotation('mDisplayInfo=DisplayInfo{"Built-in", rotation 3, state ON}') == 3
    assert parse_display_rotation("nothing here") is None


def test_night_mode_and_locales_answers() -> None:
    assert parse_night_mode("Night mode: yes\n") == "yes"
    assert parse_night_mode("Error: mode must be 'yes', 'no', or 'auto'\n") is None
    assert parse_app_locales("Locales for com.x for user 0 are [fr-FR,en-US]\n") == (
        "fr-FR",
        "en-US",
    )
    assert parse_app_locales("Locales for com.x for user 0 are []\n") == ()
    with pytest.raises(NotFoundError):
        parse_app_locales("Unknown package com.nope for userId 0\n")


def test_orientation_turns_the_display_and_goes_back() -> None:
    with simulated("notes_list") as sim:
        client, ledger = sim.client, RestoreLedger()
        change = orientation.set_orientation(client, "landscape")
        assert change.after.orientation == "landscape" and change.note is None
        assert change.before.orientation == "portrait"
        ledger.record("s1", client.serial, "orientation", "orientation",
                      lambda c: orientation.restore_rotation(c, change.saved))  # fmt: skip
        width, height, _ = sim.userland.device.screenshot(raw=True)
        assert (width, height) == (2400, 1080)
        assert 'rotation="1"' in client.shell("uiautomator dump /dev/tty").stdout.decode()

        ledger.end_session("s1", lambda serial: client)
        assert orientation.read_rotation(client).orientation == "portrait"
        assert sim.userland.state.settings["system"].get("user_rotation") is None  # was unset
        assert orientation.set_orientation(client, "auto").after.auto_rotate is True


def test_dark_mode_font_scale_locale_and_radios_read_back() -> None:
    with simulated("notes_list") as sim:
        client = sim.client
        dark = appearance.set_night_mode(client, "yes")
        assert (dark.before, dark.after) == ("no", "yes")
        assert "mNightMode=2 (yes)" in client.shell("dumpsys uimode").stdout.decode()
        font = appearance.set_font_scale(client, 1.3)
        assert (font.before, font.after) == ("1.0", "1.3")
        with pytest.raises(UsageError):
            appearance.set_font_scale(client, 3.5)
        locales = locale.set_app_locales(client, NOTES, ("fr-FR",))
        assert (locales.before, locales.after) == ((), ("fr-FR",))
        assert locale.set_app_locales(client, NOTES, ()).after == ()
        with pytest.raises(NotFoundError):
            locale.set_app_locales(client, "com.not.installed", ("de",))
        wifi = network.set_radio(client, "wifi", False)
        assert (wifi.before, wifi.after) == (True, False)
        assert network.set_radio(client, "data", False).after is False


def test_a_setting_that_does_not_stick_is_an_error() -> None:
    with simulated("notes_list") as sim:
        sim.userland.hooks["cmd"] = lambda inv, command: (
            0 if inv.args[:3] == ["uimode", "night", "yes"] else command(inv)
        )
        appearance.VERIFY_SECONDS, saved = 0.3, appearance.VERIFY_SECONDS
        try:
            with pytest.raises(VerificationError, match="still reports 'no'"):
                appearance.set_night_mode(sim.client, "yes")
        finally:
            appearance.VERIFY_SECONDS = saved


def test_old_releases_are_unsupported() -> None:
    with simulated("notes_list") as sim:
        sim.userland.state.properties["ro.build.version.sdk"] = "28"
        with pytest.raises(UnsupportedError, match="Android 13"):
            locale.set_app_locales(sim.client, NOTES, ("fr",))
        with pytest.raises(UnsupportedError, match="Android 10"):
            appearance.set_night_mode(sim.client, "yes")
        assert sim.userland.commands_named("cmd") == []  # refused before anything ran


def test_ledger_restores_when_the_last_session_ends() -> None:
    done: list[str] = []
    ledger = RestoreLedger()
    assert ledger.record("a", "dev", "font_scale", "font", lambda c: done.append("first"))
    assert not ledger.record("b", "dev", "font_scale", "font", lambda c: done.append("second"))
    ledger.record("b", "dev", "dark_mode", "dark", lambda c: done.append("dark"))
    assert [r.key for r in ledger.end_session("a", lambda s: None)] == []  # type: ignore[arg-type,return-value]
    assert [r.key for r in ledger.end_session("b", lambda s: None)] == ["dark_mode", "font_scale"]  # type: ignore[arg-type,return-value]
    assert done == ["dark", "first"]  # the original, not the second session's value
    ledger.record("c", "dev", "wifi", "wifi", lambda c: done.append("wifi"))
    assert ledger.keep("dev", "wifi")
    assert ledger.end_session("c", lambda s: None) == []  # type: ignore[arg-type,return-value]


def test_simulated_dumpsys_uimode_has_the_real_lines() -> None:
    real = device_output("dumpsys_uimode/adbjsoncli_device.txt").splitlines()
    with simulated("notes_list") as sim:
        simulated_lines = sim.client.shell("dumpsys uimode").stdout.decode().splitlines()
    assert len(simulated_lines) == len(real)
    for ours, theirs in zip(simulated_lines, real, strict=True):
        assert ours.split("=")[0] == theirs.split("=")[0]  # same fields, same indents
