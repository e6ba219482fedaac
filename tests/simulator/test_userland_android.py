"""The scripted Android userland with the default scenario: apps, screens, input, logs."""

from __future__ import annotations

import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from adbwire.testing.userland import BufferIO, Userland
from tests.simulator.userland_harness import make_userland, run

NOTES = "com.example.notes"


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path)


def focus(userland: Userland) -> str:
    out = run(userland, "dumpsys window | grep mCurrentFocus").out
    match = re.search(r"mCurrentFocus=Window\{\w+ u0 ([^}]+)\}", out)
    assert match, out
    return match.group(1)


def dump(userland: Userland) -> ET.Element:
    assert run(userland, "uiautomator dump").out == (
        "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    )
    return ET.fromstring(run(userland, "cat /sdcard/window_dump.xml").raw)


def keyboard_up(userland: Userland) -> bool:
    line = run(userland, "dumpsys input_method | grep mInputShown").out
    return "mInputShown=true" in line


def test_getprop(userland: Userland) -> None:
    assert run(userland, "getprop ro.build.version.sdk").out == "34\n"
    assert run(userland, "getprop no.such.prop").out == "\n"
    assert run(userland, "getprop no.such.prop fallback").out == "fallback\n"
    lines = run(userland, "getprop").out.splitlines()
    assert "[ro.kernel.qemu]: [1]" in lines
    keys = [line.split("]", 1)[0] for line in lines]
    assert keys == sorted(keys)
    assert userland.properties["ro.product.model"] == "sdk_gphone64_x86_64"


def test_pm_list_and_path(userland: Userland) -> None:
    assert run(userland, "pm list packages -3").out == f"package:{NOTES}\n"
    system = run(userland, "pm list packages -s").out
    assert "package:com.android.settings\n" in system
    assert NOTES not in system
    with_path = run(userland, "cmd package list packages -f notes").out
    assert re.fullmatch(rf"package:/data/app/~~[^/]+/{NOTES}-[^/]+/base\.apk={NOTES}\n", with_path)
    path = run(userland, f"pm path {NOTES}")
    assert path.out == "package:" + with_path.split(":", 1)[1].rsplit("=", 1)[0] + "\n"
    missing = run(userland, "pm path com.nope")
    assert (missing.status, missing.out) == (1, "")


def test_dumpsys_package(userland: Userland) -> None:
    out = run(userland, f"dumpsys package {NOTES}").out
    assert "    versionCode=231 minSdk=26 targetSdk=34\n" in out
    assert "    versionName=2.3.1\n" in out
    assert "    installerPackageName=com.android.vending\n" in out
    assert "      firstInstallTime=2024-04-28 14:02:11\n" in out
    assert "    lastUpdateTime=2024-05-02 10:07:31\n" in out
    assert "        android.permission.CAMERA: granted=false" in out
    assert "        android.permission.POST_NOTIFICATIONS: granted=true" in out
    assert f"{NOTES}/.NotesListActivity filter" in out
    assert 'Category: "android.intent.category.LAUNCHER"' in out
    assert run(userland, "dumpsys package com.nope").out == "Unable to find package: com.nope\n"


def test_grant_revoke_and_clear(userland: Userland) -> None:
    camera = "android.permission.CAMERA"
    assert run(userland, f"pm grant {NOTES} {camera}").status == 0
    assert f"{camera}: granted=true" in run(userland, f"dumpsys package {NOTES}").out
    assert run(userland, f"pm revoke {NOTES} {camera}").status == 0
    assert f"{camera}: granted=false" in run(userland, f"dumpsys package {NOTES}").out
    not_runtime = run(userland, f"pm grant {NOTES} android.permission.INTERNET")
    assert not_runtime.status == 255
    assert "is not a changeable permission type" in not_runtime.err
    unknown = run(userland, f"pm grant com.nope {camera}")
    assert unknown.err.startswith("Exception occurred while executing 'grant':\n")
    assert "java.lang.IllegalArgumentException: Unknown package: com.nope" in unknown.err
    assert run(userland, f"pm clear {NOTES}").out == "Success\n"
    post = "android.permission.POST_NOTIFICATIONS: granted=false"
    assert post in run(userland, f"dumpsys package {NOTES}").out
    failed = run(userland, "pm clear com.nope")
    assert (failed.status, failed.err) == (1, "Failed\n")


def test_launch_with_monkey_starts_the_process_and_focuses_the_app(userland: Userland) -> None:
    assert run(userland, f"pidof {NOTES}").status == 1
    result = run(userland, f"monkey -p {NOTES} -c android.intent.category.LAUNCHER 1")
    assert result.status == 0
    assert "Events injected: 1\n" in result.out
    assert focus(userland) == f"{NOTES}/{NOTES}.NotesListActivity"
    pid = run(userland, f"pidof {NOTES}").out.strip()
    assert pid.isdigit()
    assert f"Start proc {pid}:{NOTES}/u0a190" in run(userland, "logcat -d -b system").out
    aborted = run(userland, "monkey -p com.nope -c android.intent.category.LAUNCHER 1")
    assert (aborted.status, aborted.err) == (
        252,
        "** No activities found to run, monkey aborted.\n",
    )


def test_am_start_wait_and_force_stop(userland: Userland) -> None:
    result = run(userland, f"am start -W -n {NOTES}/.SettingsActivity")
    assert result.out.splitlines()[:4] == [
        f"Starting: Intent {{ cmp={NOTES}/.SettingsActivity }}",
        "Status: ok",
        "LaunchState: COLD",
        f"Activity: {NOTES}/.SettingsActivity",
    ]
    assert result.out.endswith("Complete\n")
    assert focus(userland) == f"{NOTES}/{NOTES}.SettingsActivity"
    assert run(userland, f"am force-stop {NOTES}").status == 0
    assert run(userland, f"pidof {NOTES}").status == 1
    assert focus(userland).startswith("com.google.android.apps.nexuslauncher/")
    missing = run(userland, f"am start -n {NOTES}/.Nope")
    assert missing.err == (
        f"Error type 3\nError: Activity class {{{NOTES}/{NOTES}.Nope}} does not exist.\n"
    )


def test_deep_links(userland: Userland) -> None:
    result = run(userland, "am start -a android.intent.action.VIEW -d notes://settings")
    assert (
        result.out == "Starting: Intent { act=android.intent.action.VIEW dat=notes://settings }\n"
    )
    assert focus(userland) == f"{NOTES}/{NOTES}.SettingsActivity"
    web = run(
        userland,
        f"am start -a android.intent.action.VIEW -d https://notes.example.com/new/x -p {NOTES}",
    )
    assert "dat=https://notes.example.com/..." in web.out
    assert focus(userland) == f"{NOTES}/{NOTES}.NoteEditorActivity"
    nowhere = run(userland, "am start -a android.intent.action.VIEW -d foo://bar")
    assert nowhere.err == (
        "Error: Activity not started, unable to resolve Intent "
        "{ act=android.intent.action.VIEW dat=foo://bar flg=0x10000000 }\n"
    )


def test_crash_at_launch_leaves_a_fatal_exception_and_kills_the_process(userland: Userland) -> None:
    assert run(userland, "logcat -d -b crash").out == ""
    result = run(userland, f"am start -W -n {NOTES}/.StatsActivity")
    assert "LaunchState: UNKNOWN (0)" in result.out
    crash = run(userland, "logcat -d -b crash").out
    lines = crash.splitlines()
    match = re.match(r"\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +(\d+) +(\d+) E AndroidRuntime: ", lines[0])
    assert match, lines[0]
    pid = match.group(1)
    assert lines[0].endswith("FATAL EXCEPTION: main")
    assert lines[1].endswith(f"Process: {NOTES}, PID: {pid}")
    assert "Caused by: java.lang.IllegalStateException" in crash
    assert run(userland, f"pidof {NOTES}").status == 1
    assert focus(userland).startswith("com.google.android.apps.nexuslauncher/")
    system = run(userland, "logcat -d -b system").out
    assert f"Process {NOTES} (pid {pid}) has died" in system


def test_tapping_typing_and_back(userland: Userland) -> None:
    run(userland, f"monkey -p {NOTES} -c android.intent.category.LAUNCHER 1")
    fab = dump(userland).find(".//node[@resource-id='com.example.notes:id/fab']")
    assert fab is not None
    left, top, right, bottom = map(int, re.findall(r"\d+", fab.get("bounds", "")))
    run(userland, f"input tap {(left + right) // 2} {(top + bottom) // 2}")
    assert focus(userland) == f"{NOTES}/{NOTES}.NoteEditorActivity"
    assert keyboard_up(userland)
    assert run(userland, "input text 'Buy%sbread'").status == 0
    title = dump(userland).find(".//node[@resource-id='com.example.notes:id/note_title_input']")
    assert title is not None
    assert (title.get("text"), title.get("focused")) == ("Buy bread", "true")
    run(userland, "input keyevent KEYCODE_DEL")
    title = dump(userland).find(".//node[@resource-id='com.example.notes:id/note_title_input']")
    assert title is not None and title.get("text") == "Buy brea"
    run(userland, "input keyevent BACK")
    assert not keyboard_up(userland)
    assert focus(userland) == f"{NOTES}/{NOTES}.NoteEditorActivity"
    run(userland, "input keyevent 4")
    assert focus(userland) == f"{NOTES}/{NOTES}.NotesListActivity"
    run(userland, "input swipe 540 1800 540 600 300")
    texts = [n.get("text") for n in dump(userland).iter("node")]
    assert "Wi-Fi at the cabin" in texts
    run(userland, "input keyevent KEYCODE_HOME")
    assert focus(userland).startswith("com.google.android.apps.nexuslauncher/")


def test_input_text_refuses_non_ascii_like_android(userland: Userland) -> None:
    result = run(userland, "input text 'héllo'")
    assert result.status == 255
    assert result.err.startswith("Exception occurred while executing 'text':")


def test_compressed_dump_and_dump_to_stdout(userland: Userland) -> None:
    full = run(userland, "uiautomator dump /dev/tty").out
    assert full.endswith("</hierarchy>UI hierchary dumped to: /dev/tty\n")
    compressed = run(userland, "uiautomator dump --compressed /dev/tty").out
    assert compressed.count("<node") < full.count("<node")
    assert 'content-desc="Notes"' in compressed


def test_screencap_png_raw_and_secure(userland: Userland) -> None:
    png = run(userland, "screencap -p").raw
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    raw = run(userland, "screencap").raw
    width, height, fmt, space = (int.from_bytes(raw[i : i + 4], "little") for i in range(0, 16, 4))
    assert (width, height, fmt, space) == (1080, 2400, 1, 1)
    assert len(raw) == 16 + 1080 * 2400 * 4
    assert set(raw[16:]) != {0, 255}
    run(userland, "am start -a android.intent.action.VIEW -d notes://vault")
    secure = run(userland, "screencap").raw[16:]
    assert secure == b"\x00\x00\x00\xff" * (1080 * 2400)
    assert run(userland, "screencap /sdcard/shot.png").status == 0
    assert run(userland, "cat /sdcard/shot.png").raw.startswith(b"\x89PNG")


def test_password_fields_show_bullets(userland: Userland) -> None:
    run(userland, "am start -a android.intent.action.VIEW -d notes://vault")
    run(userland, "input text 1234")
    pin = dump(userland).find(".//node[@password='true']")
    assert pin is not None and pin.get("text") == "\u2022" * 4


def test_wm_size_density_and_settings(userland: Userland) -> None:
    assert run(userland, "wm size").out == "Physical size: 1080x2400\n"
    assert run(userland, "wm density").out == "Physical density: 420\n"
    run(userland, "wm size 720x1280")
    assert run(userland, "wm size").out == "Physical size: 1080x2400\nOverride size: 720x1280\n"
    assert run(userland, "settings get global airplane_mode_on").out == "0\n"
    assert run(userland, "cmd connectivity airplane-mode").out == "disabled\n"
    run(userland, "cmd connectivity airplane-mode enable")
    assert run(userland, "settings get global airplane_mode_on").out == "1\n"
    run(userland, "settings put system screen_off_timeout 120000")
    assert run(userland, "settings get system screen_off_timeout").out == "120000\n"
    assert run(userland, "settings get secure nope").out == "null\n"
    assert "font_scale=1.0\n" in run(userland, "settings list system").out


def test_logcat_filters(userland: Userland) -> None:
    everything = run(userland, "logcat -d").out
    assert everything.startswith("--------- beginning of system\n")  # its first entry is oldest
    assert "\n--------- beginning of main\n" in everything
    assert run(userland, "logcat -d -b main").out.count("beginning of") == 0
    tail = run(userland, "logcat -d -t 3 -b main").out.splitlines()
    assert len(tail) == 3 and tail[-1].endswith("details=android.policy:POWER)...")
    only_tag = run(userland, "logcat -d -s LatinIME").out.splitlines()
    assert only_tag and all(" I LatinIME: " in line for line in only_tag if "-----" not in line)
    warnings = [ln for ln in run(userland, "logcat -d '*:W'").out.splitlines() if "---" not in ln]
    assert warnings and all(re.search(r" [WEF] ", line) for line in warnings)
    by_pid = run(userland, "logcat -d --pid=1021").out.splitlines()
    assert by_pid and all(" 1021 " in line for line in by_pid if "---" not in line)
    assert run(userland, "logcat -c").status == 0
    assert run(userland, "logcat -d").out == ""


def test_logcat_follows_new_entries_until_cancelled(userland: Userland) -> None:
    io = BufferIO()
    thread = threading.Thread(target=userland.run, args=("logcat -b crash", io))
    thread.start()
    run(userland, f"am start -n {NOTES}/.StatsActivity")
    for _ in range(200):
        if b"FATAL EXCEPTION" in io.stdout:
            break
        threading.Event().wait(0.01)
    io.cancel()
    thread.join(5)
    assert not thread.is_alive()
    assert b"FATAL EXCEPTION: main" in io.stdout


def test_dumpsys_activity_and_battery(userland: Userland) -> None:
    run(userland, f"monkey -p {NOTES} -c android.intent.category.LAUNCHER 1")
    out = run(userland, "dumpsys activity activities").out
    assert out.startswith("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n")
    assert re.search(
        rf"ResumedActivity: ActivityRecord\{{\w+ u0 {NOTES}/\.NotesListActivity t\d+\}}", out
    )
    assert "  mFocusedApp=ActivityRecord{" in out
    battery = run(userland, "dumpsys battery").out
    assert "  level: 100\n" in battery
    run(userland, "dumpsys battery set level 15")
    assert "  level: 15\n" in run(userland, "dumpsys battery").out
    assert run(userland, "dumpsys nosuch").out == "Can't find service: nosuch\n"


def test_files_commands(userland: Userland) -> None:
    assert run(userland, "ls /sdcard/Download").out == "groceries.txt\n"
    listing = run(userland, "ls -l /sdcard/Download").out.splitlines()
    assert listing[0].startswith("total ")
    assert re.fullmatch(r"-rw-rw---- 1 \S+ +\S+ +29 2024-05-01 18:20 groceries.txt", listing[1])
    assert run(userland, "cat /sdcard/Download/groceries.txt | head -n 2").out == "milk\neggs\n"
    assert run(userland, "wc -l /sdcard/Download/groceries.txt").out.split()[0] == "4"
    assert run(userland, "stat -c '%s %a %n' /sdcard/Download/groceries.txt").out == (
        "29 660 /sdcard/Download/groceries.txt\n"
    )
    assert run(userland, "mkdir -p /sdcard/a/b && ls /sdcard/a").out == "b\n"
    assert run(userland, "mkdir /sdcard/a").err == "mkdir: '/sdcard/a': File exists\n"
    assert run(userland, "rm /sdcard/a").err == "rm: /sdcard/a: Is a directory\n"
    assert run(userland, "rm -r /sdcard/a; ls /sdcard/a").status == 1
    assert run(userland, "rm -f /sdcard/none").status == 0
    assert run(userland, "cat /sdcard/none").err == "cat: /sdcard/none: No such file or directory\n"


def test_identity_root_and_reboot(userland: Userland) -> None:
    assert run(userland, "id").out.startswith("uid=2000(shell) gid=2000(shell) groups=2000(shell),")
    assert run(userland, "whoami").out == "shell\n"
    userland.on_root_changed(True)
    assert run(userland, "id -u").out == "0\n"
    run(userland, f"monkey -p {NOTES} -c android.intent.category.LAUNCHER 1")
    userland.on_reboot("")
    assert run(userland, f"pidof {NOTES}").status == 1
    assert run(userland, "whoami").out == "shell\n"
    assert focus(userland).startswith("com.google.android.apps.nexuslauncher/")
