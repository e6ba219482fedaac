"""`pm` (and `cmd package`): list, path, dump, grant/revoke, clear, install, uninstall."""

from __future__ import annotations

import traceback

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.android.install import install_apk_bytes
from adbwire.testing.userland.android.packages import RUNTIME_PERMISSIONS, short_component
from adbwire.testing.userland.commands.activity import parse_intent, resolve
from adbwire.testing.userland.commands.dumpsys_package import dump_packages
from adbwire.testing.userland.commands.install_sessions import SESSION_VERBS
from adbwire.testing.userland.commands.instrument import list_instrumentation
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

_STACK = {
    "grant": "\tat com.android.server.pm.permission.PermissionManagerServiceImpl"
    ".grantRuntimePermissionInternal(PermissionManagerServiceImpl.java:1442)",
    "revoke": "\tat com.android.server.pm.permission.PermissionManagerServiceImpl"
    ".revokeRuntimePermissionInternal(PermissionManagerServiceImpl.java:1609)",
}


def _exception(inv: Invocation, verb: str, kind: str, message: str) -> int:
    """What ShellCommand prints when the service throws: the exception, then a stack."""
    inv.err(
        f"Exception occurred while executing '{verb}':\n{kind}: {message}\n"
        f"{_STACK.get(verb, '')}\n\tat com.android.server.pm.PackageManagerShellCommand"
        f".onCommand(PackageManagerShellCommand.java:{250 + len(verb)})\n"
        "\tat com.android.modules.utils.BasicShellCommandHandler.exec"
        "(BasicShellCommandHandler.java:97)\n"
    )
    return 255


def _strip_user(args: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--user":
            skip = True
        else:
            out.append(arg)
    return out


def list_packages(inv: Invocation, args: list[str]) -> int:
    flags = {a for a in args if a.startswith("-")}
    filters = [a for a in args if not a.startswith("-")]
    lines = []
    for app in inv.device.state.packages.values():
        if ("-3" in flags and app.system) or ("-s" in flags and not app.system):
            continue
        if ("-d" in flags and app.enabled) or ("-e" in flags and not app.enabled):
            continue
        if filters and filters[0] not in app.name:
            continue
        line = "package:" + (f"{app.apk}=" if "-f" in flags else "") + app.name
        if "--show-versioncode" in flags:
            line += f" versionCode:{app.version_code}"
        if "-i" in flags:
            line += f"  installer={app.installer}"
        if "-U" in flags:
            line += f" uid:{app.uid}"
        lines.append(line + "\n")
    inv.out("".join(lines))
    return 0


def grant_revoke(inv: Invocation, verb: str, args: list[str]) -> int:
    if len(args) < 2:
        inv.err("Error: no package specified\n" if not args else "Error: no permission specified\n")
        return 1
    package, permission = args[0], args[1]
    state = inv.device.state
    with state.lock:
        app = state.packages.get(package)
        if app is None:
            return _exception(
                inv, verb, "java.lang.IllegalArgumentException", f"Unknown package: {package}"
            )
        if (
            not permission.startswith("android.permission.")
            and permission not in app.requested_permissions
        ):
            return _exception(
                inv, verb, "java.lang.IllegalArgumentException", f"Unknown permission: {permission}"
            )
        if permission not in app.requested_permissions:
            return _exception(
                inv,
                verb,
                "java.lang.SecurityException",
                f"Package {package} has not requested permission {permission}",
            )
        if permission not in RUNTIME_PERMISSIONS:
            return _exception(
                inv,
                verb,
                "java.lang.SecurityException",
                f"Permission {permission} requested by {package} is not a "
                "changeable permission type",
            )
        if verb == "grant":
            app.granted_runtime.add(permission)
        else:
            app.granted_runtime.discard(permission)
            if app.pid is not None:
                state.kill(package, "permissions revoked")
                state.nav.drop_package(package)
    return 0


def install(inv: Invocation, args: list[str]) -> int:
    size: int | None = None
    path: str | None = None
    rest = list(args)
    options: list[str] = []
    while rest:
        arg = rest.pop(0)
        if arg == "-S" and rest:
            size = int(rest.pop(0))
        elif (
            arg
            in (
                "-i",
                "--user",
                "--install-reason",
                "--originating-uri",
                "--referrer",
                "--abi",
                "--pkg",
                "--install-location",
            )
            and rest
        ):
            options += [arg, rest.pop(0)]
        elif arg.startswith("-"):
            options.append(arg)
        else:
            path = arg
    if path is not None and path != "-":
        try:
            with inv.device.files.open_read(inv.path(path)) as handle:
                data = handle.read()
        except FsError:
            return _exception(
                inv,
                "install",
                "java.lang.IllegalArgumentException",
                f"Error: Can't open file: {path}",
            )
    else:
        data = inv.read_stdin()
        if size is not None and len(data) < size:
            inv.out(
                "Failure [INSTALL_FAILED_INTERNAL_ERROR: "
                f"Expected {size} bytes but received {len(data)}]\n"
            )
            return 1
        data = data[:size] if size is not None else data
    with inv.device.state.lock:
        result = install_apk_bytes(inv.device.state, data, options)
    inv.out(result + "\n")
    return 0 if result == "Success" else 1


def pm(inv: Invocation) -> int:
    if not inv.args:
        inv.err("usage: pm [list|path|install|uninstall|clear|grant|revoke|dump] ...\n")
        return 1
    verb, args = inv.args[0], _strip_user(inv.args[1:])
    state = inv.device.state
    try:
        if verb == "list" and args[:1] == ["instrumentation"]:
            return list_instrumentation(inv, args[1:])
        if verb == "list" and args[:1] == ["packages"]:
            return list_packages(inv, args[1:])
        if verb == "path" and args:
            app = state.packages.get(args[0])
            if app is None:
                return 1
            inv.out(f"package:{app.apk}\n")
            directory = app.apk.rsplit("/", 1)[0]
            inv.out("".join(f"package:{directory}/split_{name}.apk\n" for name in app.splits))
            return 0
        if verb == "dump" and args:
            inv.out(dump_packages(state, args[0]))
            return 0
        if verb in ("grant", "revoke"):
            return grant_revoke(inv, verb, args)
        if verb == "clear" and args:
            with state.lock:
                ok = state.clear_data(args[0])
            if ok:
                inv.out("Success\n")
                return 0
            inv.err("Failed\n")
            return 1
        if verb == "install":
            return install(inv, args)
        if verb in SESSION_VERBS:
            return SESSION_VERBS[verb](inv, args)
        if verb == "uninstall" and [a for a in args if a != "-k"]:
            package = next(a for a in args if a != "-k")
            with state.lock:
                ok = state.uninstall(package, keep_data="-k" in args)
            inv.out("Success\n" if ok else "Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
            return 0 if ok else 1
        if verb == "resolve-activity":
            return resolve_activity(inv, args)
    except Exception as exc:
        return _exception(
            inv, verb, type(exc).__name__, "".join(traceback.format_exception_only(exc)).strip()
        )
    inv.err(
        f"Unknown command: {verb}\n"
        if verb not in ("list", "path", "dump", "clear", "uninstall")
        else "Error: no package specified\n"
    )
    return 255 if verb not in ("path", "dump", "clear", "uninstall") else 1


def resolve_activity(inv: Invocation, args: list[str]) -> int:
    """`resolve-activity [--brief] INTENT`: the intent is parsed as `am start` parses it (a
    bare last argument is the package)."""
    intent, _options = parse_intent(args)
    found = resolve(inv, intent)
    if isinstance(found, str):
        inv.out("No activity found\n")
        return 0
    component = short_component(found[0], found[1].name)
    if "--brief" in args:
        inv.out(
            "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
            f"{component}\n"
        )
    else:
        inv.out(f"Activity Resolver Table:\n  {component}\n")
    return 0


COMMANDS: dict[str, CommandFn] = {"pm": pm}
