"""`dumpsys power`: PowerManagerService's dump, trimmed to its commonly read sections.

Field names, order and value formats follow AOSP's PowerManagerService.dumpInternal (read
from the source, no real capture at hand):
`mWakefulness=Awake|Asleep`, `mHoldingDisplaySuspendBlocker=true` while the display is on,
times as TimeUtils.formatUptime prints them (`791000 (12345 ms ago)`), the suspend blockers
as `NAME: ref count=N`, and `Display Power: state=ON|OFF` (Display.stateToString).
"""

from __future__ import annotations

from adbwire.testing.userland.android.state import AndroidState

_PLUG_TYPES = (("ac_powered", 1), ("usb_powered", 2), ("wireless_powered", 4), ("dock_powered", 8))


def _uptime(time_ms: int, now_ms: int) -> str:
    diff = time_ms - now_ms
    if diff > 0:
        return f"{time_ms} (in {diff} ms)"
    return f"{time_ms} ({-diff} ms ago)" if diff else f"{time_ms} (now)"


def _flag(value: bool) -> str:
    return "true" if value else "false"


def dump_power(state: AndroidState) -> str:
    power = state.power
    now_ms = int(state.clock.uptime() * 1000)
    plug_type = next((code for key, code in _PLUG_TYPES if state.battery.get(key)), 0)
    awake = power.awake
    try:
        screen_off_ms = int(state.settings.get("system", {}).get("screen_off_timeout", "60000"))
    except ValueError:
        screen_off_ms = 60000
    state_lines = [
        "Power Manager State:",
        "  Settings power_manager_constants:",
        "    no_cached_wake_locks=true",
        "  mDirty=0x0",
        f"  mWakefulness={power.wakefulness}",
        "  mWakefulnessChanging=false",
        f"  mIsPowered={_flag(plug_type != 0)}",
        f"  mPlugType={plug_type}",
        f"  mBatteryLevel={state.battery.get('level', 100)}",
        "  mDreamsBatteryLevelDrain=0",
        "  mDockState=0",
        "  mStayOn=false",
        "  mProximityPositive=false",
        "  mBootCompleted=true",
        "  mSystemReady=true",
        "  mEnhancedDischargeTimeElapsed=0",
        "  mLastEnhancedDischargeTimeUpdatedElapsed=0",
        "  mEnhancedDischargePredictionIsPersonalized=false",
        f"  mHalAutoSuspendModeEnabled={_flag(not awake)}",
        f"  mHalInteractiveModeEnabled={_flag(awake)}",
        "  mWakeLockSummary=0x0",
        "  mNotifyLongScheduled=(none)",
        "  mNotifyLongDispatched=(none)",
        "  mNotifyLongNextCheck=(none)",
        "  mRequestWaitForNegativeProximity=false",
        "  mInterceptedPowerKeyForProximity=false",
        "  mSandmanScheduled=false",
        "  mBatteryLevelLow=false",
        "  mLightDeviceIdleMode=false",
        "  mDeviceIdleMode=false",
        "  mDeviceIdleWhitelist=[]",
        "  mDeviceIdleTempWhitelist=[]",
        "  mLowPowerStandbyActive=false",
        f"  mLastWakeTime={_uptime(power.last_wake_ms, now_ms)}",
        f"  mLastSleepTime={_uptime(power.last_sleep_ms, now_ms)}",
        f"  mLastSleepReason={power.last_sleep_reason}",
        f"  mLastInteractivePowerHintTime={_uptime(power.last_wake_ms, now_ms)}",
        f"  mLastScreenBrightnessBoostTime={_uptime(0, now_ms)}",
        "  mScreenBrightnessBoostInProgress=false",
        "  mHoldingWakeLockSuspendBlocker=false",
        f"  mHoldingDisplaySuspendBlocker={_flag(awake)}",
        "  mLastFlipTime=0",
        "  mIsFaceDown=false",
    ]
    settings_lines = [
        "Settings and Configuration:",
        "  mDecoupleHalAutoSuspendModeFromDisplayConfig=false",
        "  mDecoupleHalInteractiveModeFromDisplayConfig=true",
        "  mWakeUpWhenPluggedOrUnpluggedConfig=true",
        "  mTheaterModeEnabled=false",
        "  mDreamsSupportedConfig=true",
        "  mDreamsEnabledSetting=false",
        "  mDozeAfterScreenOff=false",
        "  mStayOnWhilePluggedInSetting=0",
        "  mDoubleTapWakeEnabled=false",
        "  mForegroundProfile=0",
        "  mUserId=0",
    ]
    timeouts = [
        "Attentive timeout: -1 ms",
        "Sleep timeout: -1 ms",
        f"Screen off timeout: {screen_off_ms} ms",
        f"Screen dim duration: {min(7000, screen_off_ms // 5)} ms",
    ]
    blockers = [
        "Suspend Blockers: size=4",
        "  PowerManagerService.WakeLocks: ref count=0",
        f"  PowerManagerService.Display: ref count={int(awake)}",
        "  PowerManagerService.Broadcasts: ref count=0",
        "  PowerManagerService.WirelessChargerDetector: ref count=0",
    ]
    sections = [
        ["POWER MANAGER (dumpsys power)"],
        state_lines,
        settings_lines,
        timeouts,
        ["Wake Locks: size=0"],
        blockers,
        [f"Display Power: state={power.display_state}"],
    ]
    return "\n\n".join("\n".join(lines) for lines in sections) + "\n"
