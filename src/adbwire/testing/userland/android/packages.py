"""Installed packages as the package manager tracks them at run time."""

from __future__ import annotations

from dataclasses import dataclass, field

from adbwire.testing.scenario import ActivitySpec, PackageSpec

# Runtime ("dangerous") permissions: the ones `pm grant`/`pm revoke` may change.
RUNTIME_PERMISSIONS = frozenset(
    "android.permission." + name
    for name in (
        "READ_CALENDAR",
        "WRITE_CALENDAR",
        "CAMERA",
        "READ_CONTACTS",
        "WRITE_CONTACTS",
        "GET_ACCOUNTS",
        "ACCESS_FINE_LOCATION",
        "ACCESS_COARSE_LOCATION",
        "ACCESS_BACKGROUND_LOCATION",
        "RECORD_AUDIO",
        "READ_PHONE_STATE",
        "READ_PHONE_NUMBERS",
        "CALL_PHONE",
        "ANSWER_PHONE_CALLS",
        "READ_CALL_LOG",
        "WRITE_CALL_LOG",
        "ADD_VOICEMAIL",
        "USE_SIP",
        "BODY_SENSORS",
        "SEND_SMS",
        "RECEIVE_SMS",
        "READ_SMS",
        "RECEIVE_WAP_PUSH",
        "RECEIVE_MMS",
        "READ_EXTERNAL_STORAGE",
        "WRITE_EXTERNAL_STORAGE",
        "ACCESS_MEDIA_LOCATION",
        "ACTIVITY_RECOGNITION",
        "POST_NOTIFICATIONS",
        "READ_MEDIA_IMAGES",
        "READ_MEDIA_VIDEO",
        "READ_MEDIA_AUDIO",
        "READ_MEDIA_VISUAL_USER_SELECTED",
        "NEARBY_WIFI_DEVICES",
        "BLUETOOTH_CONNECT",
        "BLUETOOTH_SCAN",
        "BLUETOOTH_ADVERTISE",
        "UWB_RANGING",
    )
)


@dataclass
class InstallSession:
    """An open `pm install-create` session: its options and the splits written so far."""

    options: list[str]
    splits: dict[str, bytes] = field(default_factory=dict)


@dataclass
class InstalledPackage:
    name: str
    version_name: str
    version_code: int
    system: bool
    installer: str | None
    uid: int
    min_sdk: int
    target_sdk: int
    first_install_time: str
    last_update_time: str
    apk: str
    requested_permissions: list[str]
    granted_runtime: set[str]
    activities: list[ActivitySpec]
    pid: int | None = None
    enabled: bool = True
    data_cleared: bool = False
    extra: dict[str, str] = field(default_factory=dict)
    splits: list[str] = field(default_factory=list)
    """Split APK names installed beside the base (`pm path` lists split_NAME.apk too)."""

    @classmethod
    def from_spec(cls, spec: PackageSpec) -> InstalledPackage:
        return cls(
            name=spec.name,
            version_name=spec.version_name,
            version_code=spec.version_code,
            system=spec.system,
            installer=spec.installer,
            uid=spec.uid,
            min_sdk=spec.min_sdk,
            target_sdk=spec.target_sdk,
            first_install_time=spec.first_install_time,
            last_update_time=spec.last_update_time,
            apk=spec.apk,
            requested_permissions=list(spec.requested_permissions),
            granted_runtime={p for p in spec.granted_permissions if p in RUNTIME_PERMISSIONS},
            activities=list(spec.activities),
        )

    @property
    def user_name(self) -> str:
        """The Linux user name of the app's processes: `u0_a190` for uid 10190."""
        return uid_name(self.uid)

    @property
    def data_dir(self) -> str:
        return f"/data/user/0/{self.name}"

    @property
    def code_dir(self) -> str:
        return self.apk.rsplit("/", 1)[0]

    def install_permissions(self) -> list[str]:
        return [p for p in self.requested_permissions if p not in RUNTIME_PERMISSIONS]

    def runtime_permissions(self) -> list[str]:
        return [p for p in self.requested_permissions if p in RUNTIME_PERMISSIONS]

    def launcher_activity(self) -> ActivitySpec | None:
        return next((a for a in self.activities if a.launcher), None)

    def activity(self, class_name: str) -> ActivitySpec | None:
        full = self.name + class_name if class_name.startswith(".") else class_name
        return next((a for a in self.activities if a.name == full), None)


def uid_name(uid: int) -> str:
    names = {0: "root", 1000: "system", 1001: "radio", 1013: "media", 2000: "shell"}
    if uid in names:
        return names[uid]
    if uid >= 10000:
        return f"u0_a{uid - 10000}"
    return str(uid)


def short_component(package: str, class_name: str) -> str:
    """ComponentName.flattenToShortString(): `pkg/.Cls` when the class is inside the package."""
    if class_name.startswith(package + "."):
        return f"{package}/{class_name[len(package) :]}"
    return f"{package}/{class_name}"


def split_component(component: str) -> tuple[str, str]:
    """`pkg/.Cls` or `pkg/full.Cls` to (package, fully qualified class)."""
    package, _, class_name = component.partition("/")
    if class_name.startswith("."):
        class_name = package + class_name
    return package, class_name
