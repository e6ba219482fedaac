"""Notifications parsed from real `dumpsys notification` output and from the simulated device,
and the shade the UI tools can tap into."""

from __future__ import annotations

from adbwire.device import notifications
from adbwire.device.parsers.notifications import parse_notifications
from adbwire.device.ui import read_ui
from tests.device.ui_sim import simulated
from tests.device_outputs import device_output


def test_redacted_dump_of_android_12() -> None:
    found = parse_notifications(
        device_output("dumpsys_notification/redacted_android12_hfreeman.txt")
    )
    assert len(found) == 1
    note = found[0]
    assert (note.package, note.channel, note.key) == (
        "android",
        "DEVELOPER_IMPORTANT",
        "-1|android|26|null|1000",
    )
    assert note.redacted and note.title is None and note.text is None
    assert note.ongoing is True  # flags=0x2
    assert note.time == "2024-02-01T06:07:35.811Z"  # when=0: the record's creation time


def test_android_16_dump_with_named_flags_and_a_channel_with_a_space() -> None:
    found = parse_notifications(
        device_output("dumpsys_notification/deskclock_android16_adbjsoncli.txt")
    )
    assert [n.package for n in found] == ["com.google.android.deskclock", "android"]
    clock, safety = found
    assert clock.channel == "Stopwatch v2"
    assert clock.key == "0|com.google.android.deskclock|2147483642|null|10173"
    assert clock.title is None and not clock.redacted  # android.title=null
    assert clock.ongoing is False  # AUTO_CANCEL|LOCAL_ONLY
    assert clock.time == "2026-05-23T10:27:47.910Z"  # when=MS/MS
    assert safety.channel == "safety_center_recommendation"  # from the header: record cut short


def test_texts_over_several_lines_and_only_the_notification_list() -> None:
    text = (
        "Current Notification Manager state:\n  Notification List:\n"
        "    NotificationRecord(0x01: pkg=com.a user=UserHandle{0} id=1 tag=null importance=3 "
        "key=0|com.a|1|null|10001: Notification(channel=chat shortcut=null flags=0x10))\n"
        "      flags=0x10\n      extras={\n"
        "          android.title=SpannableString (Ann (work))\n"
        "          android.text=String (line one\nline two)\n      }\n"
        "\n  mArchive=Archive (1 notifications)\n"
        "    NotificationRecord(0x02: pkg=com.old user=UserHandle{0} id=2 tag=null key=k: "
        "Notification(channel=x shortcut=null))\n"
    )
    (only,) = parse_notifications(text)
    assert (only.title, only.text, only.channel) == ("Ann (work)", "line one\nline two", "chat")


def test_simulated_notifications_and_the_shade() -> None:
    with simulated("launcher") as sim:
        listed = notifications.list_notifications(sim.client)
        assert [n.title for n in listed] == [
            "Shopping list",
            "USB debugging connected",
            "Notes synced",
        ]
        assert listed[0].channel == "reminders" and listed[1].ongoing
        assert (
            notifications.list_notifications(sim.client, "android")[0].key
            == "0|android|26|adb|1000"
        )

        shade = notifications.open_notifications(sim.client)
        assert shade.method == "cmd_statusbar" and shade.shade_focused
        row = next(e for e in read_ui(sim.client).hierarchy.elements if e.text == "Shopping list")
        sim.client.shell(f"input tap {row.bounds.center[0]} {row.bounds.center[1]}")
        assert sim.userland.screen() == "notes_list"  # the notification's screen
        titles = [n.title for n in notifications.list_notifications(sim.client)]
        assert "Shopping list" not in titles  # auto-cancelled when tapped


def test_without_cmd_statusbar_the_shade_is_pulled_by_a_swipe() -> None:
    with simulated("launcher") as sim:

        def no_statusbar(inv, command):  # type: ignore[no-untyped-def]
            if inv.args[:1] == ["statusbar"]:
                inv.err("cmd: Can't find service: statusbar\n")
                return 20
            return command(inv)

        sim.userland.hooks["cmd"] = no_statusbar
        shade = notifications.open_notifications(sim.client)
        assert shade.method == "swipe" and shade.shade_focused is False
        assert sim.userland.commands_named("input")[-1] == [
            "input",
            "swipe",
            "540",
            "0",
            "540",
            "1600",
            "300",
        ]
