"""dumpsys input_method: is the keyboard up? (Hand-written; no real sample is available.)"""

from __future__ import annotations

import pytest

from adbwire.device.parsers.input_method import parse_keyboard_shown

SERVICE_STATE = """\
Current Input Method Manager state:
  mCurMethodId=com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME
  mCurFocusedWindow=Window{2f3 u0 com.example.app/com.example.app.MainActivity}
  mImeWindowVis=0x3 mBackDisposition=0
  mInputShown={shown} mShowRequested=false mShowExplicitlyRequested=false
"""


@pytest.mark.parametrize(("shown", "expected"), [("true", True), ("false", False)])
def test_service_flag(shown: str, expected: bool) -> None:
    assert parse_keyboard_shown(SERVICE_STATE.replace("{shown}", shown)) is expected


def test_service_flag_wins_over_the_window_bits() -> None:
    # mImeWindowVis says visible (0x3) but the service says not shown: trust the service.
    assert parse_keyboard_shown(SERVICE_STATE.replace("{shown}", "false")) is False


def test_service_flag_wins_over_a_stale_keyboard_view_state() -> None:
    text = "  mInputShown=false\n  Input method service state:\n    mIsInputViewShown=true\n"
    assert parse_keyboard_shown(text) is False


def test_input_method_service_variants() -> None:
    assert parse_keyboard_shown("  mIsInputViewShown=true mWindowVisible=true\n") is True
    assert parse_keyboard_shown("  isInputViewShown=false\r\n") is False


def test_window_visibility_bits_as_last_resort() -> None:
    assert parse_keyboard_shown("  mImeWindowVis=0x3 mBackDisposition=0\n") is True
    assert parse_keyboard_shown("  mImeWindowVis=0x1 mBackDisposition=0\n") is False


def test_nothing_known() -> None:
    assert parse_keyboard_shown("") is None
    assert parse_keyboard_shown("Can't find service: input_method\n") is None


def test_similar_names_are_not_confused() -> None:
    assert parse_keyboard_shown("  mLastInputShown=true\n  mInputShown=false\n") is False
