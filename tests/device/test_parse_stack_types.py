"""Android 8-9's `Stack #N: type=...` headers give old dumps their tasks' activity types."""

from __future__ import annotations

from adbwire.device.parsers.activities import parse_activities
from adbwire.device.parsers.stack_types import task_types_from_stacks
from tests.device_outputs import device_output

# Android 9 (a 1920x1011 tablet, zh_CN), `dumpsys activity a`, from a blog post on AMS
# debugging (search index id 36425693564; repository not named there). Excerpt: the post's
# annotations ("// ActivityDisplay", "---- StackId") removed, most per-activity lines left out.
ANDROID_9_TABLET = """\
ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)
Display #0 (activities from top to bottom):

  Stack #3: type=standard mode=fullscreen
  isSleeping=false
  mBounds=Rect(0, 0 - 0, 0)
    Task id #5
    mBounds=Rect(0, 0 - 0, 0)
    * TaskRecord{73545e7 #5 A=com.android.settings.root U=0 StackId=3 sz=1}
      userId=0 effectiveUid=1000 mCallingUid=u0a39 mUserSetupComplete=true mCallingPackage=com.android.launcher3
      affinity=com.android.settings.root
      * Hist #0: ActivityRecord{d784835 u0 com.android.settings/.Settings t5}
          packageName=com.android.settings processName=com.android.settings
          state=RESUMED stopped=false delayedResume=false finishing=false
          mActivityType=standard

    Running activities (most recent first):
      TaskRecord{73545e7 #5 A=com.android.settings.root U=0 StackId=3 sz=1}
        Run #0: ActivityRecord{d784835 u0 com.android.settings/.Settings t5}

    mResumedActivity: ActivityRecord{d784835 u0 com.android.settings/.Settings t5}

  Stack #0: type=home mode=fullscreen
  isSleeping=false
  mBounds=Rect(0, 0 - 0, 0)

    Task id #2
    * TaskRecord{ec6153e #2 I=com.android.launcher3/.Launcher U=0 StackId=0 sz=1}
      userId=0 effectiveUid=u0a39 mCallingUid=1000 mUserSetupComplete=true mCallingPackage=android
      * Hist #0: ActivityRecord{349ee0a u0 com.android.launcher3/.Launcher t2}
          packageName=com.android.launcher3 processName=com.android.launcher3
          state=STOPPED stopped=true delayedResume=false finishing=false
          mActivityType=home

    Running activities (most recent first):
      TaskRecord{ec6153e #2 I=com.android.launcher3/.Launcher U=0 StackId=0 sz=1}
        Run #0: ActivityRecord{349ee0a u0 com.android.launcher3/.Launcher t2}

    mLastPausedActivity: ActivityRecord{349ee0a u0 com.android.launcher3/.Launcher t2}

Display #1 (activities from top to bottom):

  ResumedActivity: ActivityRecord{d784835 u0 com.android.settings/.Settings t5}


  mFocusedStack=ActivityStack{4a55594 stackId=3 type=standard mode=fullscreen visible=true translucent=false, 1 tasks}
   mHomeStack=ActivityStack{ed516bb stackId=0 type=home mode=fullscreen visible=false translucent=true, 1 tasks}
"""  # noqa: E501 (dump lines as devices print them)


def test_stack_headers_type_the_tasks_of_an_android_9_dump() -> None:
    assert task_types_from_stacks(ANDROID_9_TABLET) == {5: "standard", 2: "home"}
    stack = parse_activities(ANDROID_9_TABLET)
    assert [(t.task_id, t.activity_type) for t in stack.tasks] == [(5, None), (2, None)]
    assert stack.resumed is not None and stack.resumed.short == "com.android.settings/.Settings"
    assert [t.activities[0].state for t in stack.tasks] == ["RESUMED", "STOPPED"]


def test_no_stack_headers_no_types() -> None:
    android_7 = (
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
        "Display #0 (activities from top to bottom):\n"
        "  Stack #1:\n"
        "    Task id #12\n"
        "    * TaskRecord{1a2b3c #12 A=com.x U=0 sz=1}\n"
        "      * Hist #0: ActivityRecord{4d5e6f u0 com.x/.Main t12}\n"
    )
    assert task_types_from_stacks(android_7) == {}
    assert task_types_from_stacks("") == {}


def test_a_later_section_does_not_inherit_the_last_stacks_type() -> None:
    text = (
        "Display #0 (activities from top to bottom):\n"
        "  Stack #0: type=home mode=fullscreen\n"
        "    * TaskRecord{1a2b3c #2 I=com.android.launcher3/.Launcher U=0 StackId=0 sz=1}\n"
        "Recent tasks:\n"
        "  * TaskRecord{4d5e6f #9 A=com.y U=0 StackId=-1 sz=0}\n"
    )
    assert task_types_from_stacks(text) == {2: "home"}


def test_the_default_android_9_dump_lists_tasks_only_as_run_lines() -> None:
    # Without -a, Android 9 prints no "* TaskRecord"/"* Hist" blocks: each stack's tasks
    # appear only under "Running activities", unstarred, with "Run #N:" activities.
    text = device_output("dumpsys_activity_activities/miui_sagit_android9_default.txt")
    stack = parse_activities(text)
    assert [t.task_id for t in stack.tasks] == [3, 4, 1, 2]
    assert [a.component.class_name.rsplit(".", 1)[-1] for a in stack.tasks[0].activities] == [
        "SingleTaskTwoActivity",
        "SingleTaskTwoActivity",
        "SingleTaskOneActivity",
    ]
    assert stack.tasks[0].activities[0].component.package == "com.kunminx.relearn_android_2"
    assert {a.state for t in stack.tasks for a in t.activities} == {None}  # not printed
    assert stack.tasks[2].top.package == "com.miui.home"
    assert stack.resumed == stack.tasks[0].top
    assert task_types_from_stacks(text) == {3: "standard", 4: "standard", 1: "home", 2: "standard"}


def test_with_a_each_task_is_kept_once_with_its_states() -> None:
    stack = parse_activities(ANDROID_9_TABLET)
    assert [t.task_id for t in stack.tasks] == [5, 2]  # not again from "Running activities"
    assert stack.tasks[0].activities[0].state == "RESUMED"
