"""dumpsys activity activities: resumed activity and task stack."""

from __future__ import annotations

import pytest

from adbwire.device.parsers.activities import parse_activities
from adbwire.device.parsers.component import Component
from adbwire.errors import DeviceCommandError
from tests.device_outputs import device_output


def test_mtk_task_format() -> None:
    stack = parse_activities(
        device_output("dumpsys_activity_activities/mtk_camera_task_format.txt")
    )
    camera = Component("com.mediatek.camera", "com.mediatek.camera.CameraLauncher")
    assert stack.resumed == camera
    assert stack.focused == camera
    # Tasks holding activities, top to bottom, as listed under "Display #0"; the later
    # "Application tokens" section repeats them and must not add duplicates.
    assert [task.task_id for task in stack.tasks] == [12, 9, 10, 11]
    top = stack.tasks[0]
    assert (top.activity_type, top.visible, top.display_id) == ("standard", True, 0)
    assert top.activities[0].state == "STOPPED"
    home = stack.tasks[1]
    assert home.activity_type == "home"
    assert home.top.short == "com.android.launcher3/.uioverrides.QuickstepLauncher"
    settings = stack.tasks[2]
    assert [a.component.short for a in settings.activities] == [
        "com.android.settings/.SubSettings",
        "com.android.settings/.SubSettings",
        "com.android.settings/.Settings",
    ]
    assert settings.affinity == "com.android.settings.root"
    assert stack.tasks[3].top.flattened == "com.debug.loggerui/com.debug.loggerui.MainActivity"


def test_error_output_raises_with_the_device_words() -> None:
    text = device_output("dumpsys_activity_activities/error_unknown_command.txt")
    with pytest.raises(DeviceCommandError, match=r"Unknown command: com\.funnyenglish\.app"):
        parse_activities(text)


ANDROID_9 = """\
ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\r
Display #0 (activities from top to bottom):\r
  Stack #155: type=standard mode=fullscreen\r
  isSleeping=false\r
    Task id #2355\r
    * TaskRecord{77fa9e9 #2355 A=com.example.app U=0 StackId=155 sz=2}\r
      affinity=com.example.app\r
      * Hist #1: ActivityRecord{ce7f0e3 u0 com.example.app/.DetailActivity t2355}\r
          packageName=com.example.app processName=com.example.app\r
          state=RESUMED stopped=false delayedResume=false finishing=false\r
      * Hist #0: ActivityRecord{576278e u0 com.example.app/com.example.app.ui.MainActivity t2355}\r
          state=STOPPED stopped=true delayedResume=false finishing=false\r
\r
    Running activities (most recent first):\r
      TaskRecord{77fa9e9 #2355 A=com.example.app U=0 StackId=155 sz=2}\r
        Run #1: ActivityRecord{ce7f0e3 u0 com.example.app/.DetailActivity t2355}\r
\r
    mResumedActivity: ActivityRecord{ce7f0e3 u0 com.example.app/.DetailActivity t2355}\r
\r
  Stack #0: type=home mode=fullscreen\r
    * TaskRecord{1a2b3c #1 A=com.google.android.apps.nexuslauncher U=0 StackId=0 sz=1}\r
      * Hist #0: ActivityRecord{4d5e6f u0 com.google.android.apps.nexuslauncher/.NexusLauncherActivity t1}\r
          state=STOPPED stopped=true\r
\r
  mFocusedActivity: ActivityRecord{ce7f0e3 u0 com.example.app/.DetailActivity t2355}\r
"""  # noqa: E501 (dump lines as devices print them)


def test_android_9_task_records_with_crlf() -> None:
    stack = parse_activities(ANDROID_9)
    assert stack.resumed == Component("com.example.app", "com.example.app.DetailActivity")
    assert [t.task_id for t in stack.tasks] == [2355, 1]
    app_task = stack.tasks[0]
    assert app_task.affinity == "com.example.app"
    assert [(a.component.class_name, a.state) for a in app_task.activities] == [
        ("com.example.app.DetailActivity", "RESUMED"),
        ("com.example.app.ui.MainActivity", "STOPPED"),
    ]
    assert stack.tasks[1].top.package == "com.google.android.apps.nexuslauncher"


def test_android_4_0_without_display_lines_or_users() -> None:
    text = (
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
        "  Main stack:\n"
        "  * TaskRecord{41d5a378 #2 A com.android.launcher U 0}\n"
        "    * Hist #0: ActivityRecord{41d29ab8 com.android.launcher/com.android.launcher2.L}\n"
        "  mResumedActivity: ActivityRecord{41d2 com.android.launcher/com.android.launcher2.L}\n"
    )
    stack = parse_activities(text)
    assert stack.resumed == Component("com.android.launcher", "com.android.launcher2.L")
    assert [(t.task_id, t.affinity) for t in stack.tasks] == [(2, "com.android.launcher")]


def test_sections_after_the_display_listing_do_not_add_tasks() -> None:
    text = (
        "Display #0 (activities from top to bottom):\n"
        "  * Task{1 #5 type=standard A=10090:com.x U=0 visible=true sz=1}\n"
        "    * Hist  #0: ActivityRecord{2 u0 com.x/.Main t5}\n"
        "ActivityTaskSupervisor state:\n"
        "  * Task{3 #6 type=standard A=10091:com.y U=0 visible=false sz=1}\n"
        "    * Hist  #0: ActivityRecord{4 u0 com.y/.Other t6}\n"
    )
    assert [t.task_id for t in parse_activities(text).tasks] == [5]


def test_empty_and_truncated_output() -> None:
    empty = parse_activities("")
    assert (empty.resumed, empty.tasks, empty.focused) == (None, (), None)
    cut = parse_activities(
        "Display #0 (activities from top to bottom):\n"
        "  * Task{157c3a8 #12 type=standard A=10090:com.x U=0 visible=true sz=1}\n"
        "    * Hist  #0: ActivityRecord{1f72345 u0 com.x/.Main t12}\n"
        "      packageName=com.x proc"
    )
    assert cut.resumed is None
    assert cut.focused == Component("com.x", "com.x.Main")  # falls back to the top task
