"""`dumpsys notification [--noredact]`, in the layout of Android 12-14's NotificationRecord.

Modelled on real dumps (tests/data/device_outputs/dumpsys_notification/): without
``--noredact`` the texts read ``String [length=N]``, with it ``String (the text)``.
"""

from __future__ import annotations

from adbwire.testing.userland.android.notifications import Posted
from adbwire.testing.userland.android.state import AndroidState

FLAG_ONGOING = 0x2
FLAG_NO_CLEAR = 0x20
FLAG_AUTO_CANCEL = 0x10


def _flags(posted: Posted) -> int:
    if posted.spec.ongoing:
        return FLAG_ONGOING | FLAG_NO_CLEAR
    return FLAG_AUTO_CANCEL


def _text(value: str, noredact: bool) -> str:
    if not value:
        return "null"
    return f"String ({value})" if noredact else f"String [length={len(value)}]"


def _record(posted: Posted, noredact: bool, uptime_ms: int) -> list[str]:
    spec = posted.spec
    flags = f"0x{_flags(posted):x}"
    importance = 4 if spec.ongoing else 3
    header = (
        f"    NotificationRecord(0x0{posted.record_id}: pkg={spec.package} user=UserHandle{{0}} "
        f"id={spec.id} tag={spec.tag or 'null'} importance={importance} key={posted.key}: "
        f"Notification(channel={spec.channel} shortcut=null contentView=null vibrate=null "
        f"sound=null defaults=0x0 flags={flags} color=0x00000000 vis=PRIVATE))"
    )
    intent = f"PendingIntent{{{posted.record_id[::-1]}: PendingIntentRecord{{{posted.record_id}"
    return [
        header,
        f"      uid={spec.uid} userId=0",
        f"      opPkg={spec.package}",
        f"      icon=Icon(typ=RESOURCE pkg={spec.package} id=0x7f08012c)",
        f"      flags={flags}",
        f"      originalFlags={flags}",
        "      pri=0",
        f"      key={posted.key}",
        "      seen=true",
        f"      groupKey={posted.key}",
        "      notification=",
        "            fullscreenIntent=null",
        f"            contentIntent={intent} {spec.package} startActivity}}}}",
        "            deleteIntent=null",
        "            number=0",
        "            groupAlertBehavior=0",
        f"            when={posted.posted_ms}",
        f"            tickerText={'null' if not noredact else spec.title or 'null'}",
        "            contentView=null",
        "            bigContentView=null",
        "            headsUpContentView=null",
        "            color=0x00000000",
        "            timeout=unknown",
        "            extras={",
        f"                android.title={_text(spec.title, noredact)}",
        "                android.reduced.images=Boolean (true)",
        f"                android.text={_text(spec.text, noredact)}",
        "                android.appInfo=ApplicationInfo "
        f"(ApplicationInfo{{2b211ac {spec.package}}})",
        "            }",
        "      publicNotification=",
        "            None",
        f"      stats=SingleNotificationStats{{posttimeElapsedMs={uptime_ms}, "
        "posttimeToFirstClickMs=-1, posttimeToDismissMs=-1, airtimeCount=1, airtimeMs=5639, "
        "currentAirtimeStartElapsedMs=-1, airtimeExpandedMs=0, "
        "posttimeToFirstVisibleExpansionMs=-1, currentAirtimeExpandedStartElapsedMs=-1, "
        f"requestedImportance={importance}, naturalImportance={importance}, isNoisy=false}}",
        "      mContactAffinity=0.0",
        "      mRecentlyIntrusive=false",
        "      mPackagePriority=0",
        "      mPackageVisibility=-1000",
        "      mSystemImportance=UNSPECIFIED",
        "      mAsstImportance=UNSPECIFIED",
        f"      mImportance={'HIGH' if importance == 4 else 'DEFAULT'}",
        "      mImportanceExplanation=app",
        "      mIsAppImportanceLocked=false",
        "      mIntercept=false",
        "      mHidden==false",
        "      mGlobalSortKey=crtcl=0x0002:intrsv=1:grnk=0x0000:gsmry=1:nsk:rnk=0x0000",
        f"      mRankingTimeMs={posted.posted_ms}",
        f"      mCreationTimeMs={posted.posted_ms}",
        f"      mVisibleSinceMs={posted.posted_ms + 1021}",
        f"      mUpdateTimeMs={posted.posted_ms}",
        f"      mInterruptionTimeMs={posted.posted_ms + 1022}",
        "      mSuppressedVisualEffects= 0",
        "      mSound= null",
        "      mVibration= null",
        "      mAttributes= AudioAttributes: usage=USAGE_NOTIFICATION "
        "content=CONTENT_TYPE_SONIFICATION flags=0x800 tags= bundle=null",
        "      mLight= null",
        "      mShowBadge=true",
        "      mColorized=false",
        "      mAllowBubble=false",
        "      isBubble=false",
        "      mIsInterruptive=false",
        f"      effectiveNotificationChannel=NotificationChannel{{mId='{spec.channel}', "
        f"mName={spec.channel}, mDescription=, mImportance={importance}, mBypassDnd=false, "
        "mLockscreenVisibility=-1000, mSound=null, mLights=false, mLightColor=0, "
        "mVibration=null, mUserLockedFields=0, mFgServiceShown=false, "
        "mVibrationEnabled=false, mShowBadge=true, mDeleted=false, mDeletedTimeMs=-1, "
        "mGroup='null', mBlockableSystem=false, mAllowBubbles=-1, "
        "mImportanceLockedDefaultApp=false, mOriginalImp=3, mParent=null, "
        "mConversationId=null, mDemoted=false, mImportantConvo=false}",
        "      mAdjustments=[]",
        "      shortcut=null found valid? false",
    ]


def dump_notifications(state: AndroidState, args: list[str]) -> str:
    noredact = "--noredact" in args
    uptime_ms = int(state.clock.uptime() * 1000)
    lines = ["Current Notification Manager state:", "  Notification List:"]
    for posted in state.notifications.posted:
        lines += _record(posted, noredact, uptime_ms)
    lines += [
        "",
        "  mUseAttentionLight=false",
        "  mHasLight=false",
        "  mNotificationPulseEnabled=true",
        "  mSoundNotificationKey=null",
        "  mVibrateNotificationKey=null",
        "  mDisableNotificationEffects=false",
        "  mCallState=CALL_STATE_IDLE",
        "  mSystemReady=true",
        "  mMaxPackageEnqueueRate=5.0",
        "  hideSilentStatusBar=false",
        "  mArchive=Archive (0 notifications)",
        "",
        "  Snoozed notifications:",
        "",
        " Pending snoozed notifications",
    ]
    return "\n".join(lines) + "\n"
