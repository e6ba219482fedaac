"""`dumpsys package [PKG]` in the layout of Android 13/14's PackageManagerService dump."""

from __future__ import annotations

import zlib
from urllib.parse import urlsplit

from adbwire.testing.userland.android.packages import InstalledPackage, short_component
from adbwire.testing.userland.android.state import AndroidState


def _hex(seed: str) -> str:
    return f"{zlib.crc32(seed.encode()) & 0xFFFFFFF:07x}"


def _resolver_table(apps: list[InstalledPackage]) -> list[str]:
    lines = ["Activity Resolver Table:"]
    launchers = [(app, a) for app in apps for a in app.activities if a.launcher]
    links = [(app, a, p) for app in apps for a in app.activities for p in a.deep_links]
    if links:
        lines.append("  Schemes:")
        for app, activity, prefix in links:
            parts = urlsplit(prefix)
            component = short_component(app.name, activity.name)
            lines += [
                f"      {parts.scheme}:",
                f"        {_hex(activity.name)} {component} filter {_hex(prefix)}",
                '          Action: "android.intent.action.VIEW"',
                '          Category: "android.intent.category.DEFAULT"',
                '          Category: "android.intent.category.BROWSABLE"',
                f'          Scheme: "{parts.scheme}"',
            ]
            if parts.netloc:
                lines.append(f'          Authority: "{parts.netloc}": -1')
            if parts.path not in ("", "/"):
                lines.append(f'          Path: "PatternMatcher{{PREFIX: {parts.path}}}"')
        lines.append("")
    if launchers:
        lines += ["  Non-Data Actions:", "      android.intent.action.MAIN:"]
        for app, activity in launchers:
            component = short_component(app.name, activity.name)
            lines += [
                f"        {_hex(activity.name)} {component} filter {_hex(component)}",
                '          Action: "android.intent.action.MAIN"',
                '          Category: "android.intent.category.LAUNCHER"',
            ]
        lines.append("")
    return [*lines, ""]


def _package_section(app: InstalledPackage, state: AndroidState) -> list[str]:
    flags = (
        "[ SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA ]"
        if app.system
        else ("[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]")
    )
    installer_uid = next((p.uid for p in state.packages.values() if p.name == app.installer), 0)
    lines = [
        f"  Package [{app.name}] ({_hex(app.name)}):",
        f"    userId={app.uid}",
        f"    pkg=Package{{{_hex(app.name + 'pkg')} {app.name}}}",
        f"    codePath={app.code_dir}",
        f"    resourcePath={app.code_dir}",
        f"    legacyNativeLibraryDir={app.code_dir}/lib",
        "    extractNativeLibs=false",
        "    primaryCpuAbi=null",
        "    secondaryCpuAbi=null",
        "    cpuAbiOverride=null",
        f"    versionCode={app.version_code} minSdk={app.min_sdk} targetSdk={app.target_sdk}",
        "    minExtensionVersions=[]",
        f"    versionName={app.version_name}",
        "    hiddenApiEnforcementPolicy=2",
        "    usesNonSdkApi=false",
        "    splits=[base]",
        "    apkSigningVersion=2",
        f"    flags={flags}",
        "    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION "
        "ALLOW_AUDIO_PLAYBACK_CAPTURE PRIVATE_FLAG_ALLOW_NATIVE_HEAP_POINTER_TAGGING ]",
        "    forceQueryable=false",
        f"    dataDir={app.data_dir}",
        "    supportsScreens=[small, medium, large, xlarge, resizeable, anyDensity]",
        f"    timeStamp={app.last_update_time}",
        f"    lastUpdateTime={app.last_update_time}",
        f"    installerPackageName={app.installer}",
        f"    installerPackageUid={installer_uid if app.installer else -1}",
        f"    initiatingPackageName={app.installer}",
        "    originatingPackageName=null",
        "    packageSource=0",
        "    appMetadataFilePath=null",
        f"    signatures=PackageSignatures{{{_hex(app.name + 'sig')} version:2, "
        f"signatures:[{_hex(app.name + 'cert')[:8]}], past signatures:[]}}",
        "    installPermissionsFixed=true",
        f"    pkgFlags={flags}",
    ]
    if app.requested_permissions:
        lines.append("    requested permissions:")
        lines += [f"      {perm}" for perm in app.requested_permissions]
    if app.install_permissions():
        lines.append("    install permissions:")
        lines += [f"      {perm}: granted=true" for perm in app.install_permissions()]
    lines += [
        f"    User 0: ceDataInode={app.uid * 7 + 131} deDataInode={app.uid * 3 + 17} "
        "installed=true hidden=false suspended=false distractionFlags=0 stopped=false "
        "notLaunched=false enabled=0 instant=false virtual=false quarantined=false",
        f"      installReason={0 if app.system else 4}",
        f"      dataDir={app.data_dir}",
        f"      firstInstallTime={app.first_install_time}",
        "      uninstallReason=0",
        "      gids=[3003]" if "android.permission.INTERNET" in app.requested_permissions else "",
    ]
    if app.runtime_permissions():
        lines.append("      runtime permissions:")
        for perm in app.runtime_permissions():
            granted = "true" if perm in app.granted_runtime else "false"
            lines.append(
                f"        {perm}: granted={granted}, flags=[ USER_SENSITIVE_WHEN_GRANTED|"
                "USER_SENSITIVE_WHEN_DENIED]"
            )
    return [line for line in lines if line]


def dump_packages(state: AndroidState, package: str | None) -> str:
    """The dump for one package (or all when None); Android's message when it is unknown."""
    with state.lock:
        if package is not None and package not in state.packages:
            return f"Unable to find package: {package}\n"
        apps = [state.packages[package]] if package else list(state.packages.values())
        lines = _resolver_table(apps)
        lines += ["Key Set Manager:"]
        for app in apps:
            lines += [f"  [{app.name}]", f"      Signing KeySets: {app.uid % 97 + 3}"]
        lines += ["", "Packages:"]
        for app in apps:
            lines += _package_section(app, state)
        lines += [
            "",
            "Queries:",
            "  system apps queryable: false",
            "  queries via forceQueryable:",
            "  queries via package name:",
            "  queries via component:",
            "",
        ]
        return "\n".join(lines) + "\n"
