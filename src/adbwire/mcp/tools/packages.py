"""Package tools: list, inspect, uninstall, clear data, grant and revoke permissions."""

from __future__ import annotations

from pydantic import Field

from adbwire.device import packages as ops
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.text_lines import one_line
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import Cursor, DeviceArgs, Package, Permission, Result, on

PAGE_SIZE = 300


class ListPackagesArgs(DeviceArgs):
    contains: str | None = Field(default=None, max_length=100, description="substring filter")
    third_party_only: bool = False
    cursor: Cursor | None = None


class PackageList(Result):
    count: int = Field(description="names after the JSON (text block), one a line")
    next_cursor: str | None = None
    remaining: int = 0


class PackageArgs(DeviceArgs):
    package: Package


class UninstallArgs(PackageArgs):
    keep_data: bool = False


class PermissionArgs(PackageArgs):
    permission: Permission


class PackageDetails(Result):
    package: str
    version_name: str | None = None
    version_code: int | None = None
    installer: str | None = None
    first_install_time: str | None = None
    last_update_time: str | None = None
    system: bool
    launchable_activity: str | None = None
    requested_permissions: list[str]
    granted_permissions: list[str]


class Done(Result):
    package: str
    done: bool = True


class PermissionState(Result):
    package: str
    permission: str
    granted: bool


@tool(
    name="list_packages",
    title="List installed packages",
    risk=Risk.READ,
    input=ListPackagesArgs,
    output=PackageList,
    example={"contains": "example", "third_party_only": True},
)
async def list_packages(call: ToolCall, args: ListPackagesArgs) -> ToolOutput:
    """Installed package names, sorted, one a line after the JSON (text block); paged."""
    if args.cursor:
        page = call.app.pager.next_page("list_packages", args.cursor)
    else:
        entries = await call.run(
            ops.list_packages,
            call.client,
            contains=args.contains,
            third_party_only=args.third_party_only,
        )
        names = [entry.name for entry in entries]
        page = call.app.pager.paginate("list_packages", names, PAGE_SIZE, size=len(str(names)))
    data = PackageList(
        count=len(page.items), next_cursor=page.next_cursor, remaining=page.remaining
    )
    summary = f"{len(page.items) + page.remaining} package(s){on(call.serial)}"
    return ToolOutput(summary, data, text="\n".join(map(one_line, page.items)) or None)


@tool(
    name="package_info",
    title="Package details",
    risk=Risk.READ,
    input=PackageArgs,
    output=PackageDetails,
    example={"package": "com.example.app"},
)
async def package_info(call: ToolCall, args: PackageArgs) -> ToolOutput:
    """Version, installer, install/update times, permissions, launchable activity."""
    found = await call.run(ops.package_info, call.client, args.package)
    data = PackageDetails(
        package=found.name,
        version_name=found.version_name,
        version_code=found.version_code,
        installer=found.installer,
        first_install_time=found.first_install_time,
        last_update_time=found.last_update_time,
        system=found.is_system,
        launchable_activity=found.launchable_activity.flattened
        if found.launchable_activity
        else None,
        requested_permissions=list(found.requested_permissions),
        granted_permissions=list(found.granted_permissions),
    )
    return ToolOutput(f"{found.name} {found.version_name or ''}".strip(), data)


def _describe_uninstall(args: UninstallArgs) -> str:
    kept = "its data is kept" if args.keep_data else "its data is deleted"
    return f"uninstall {args.package} ({kept})"


@tool(
    name="uninstall_package",
    title="Uninstall a package",
    risk=Risk.DESTRUCTIVE,
    input=UninstallArgs,
    output=Done,
    example={"package": "com.example.app"},
    describe=_describe_uninstall,
)
async def uninstall_package(call: ToolCall, args: UninstallArgs) -> ToolOutput:
    """Uninstall an app (asks the user first); checks it is gone."""
    await call.run(ops.uninstall, call.client, args.package, keep_data=args.keep_data)
    return ToolOutput(f"uninstalled {args.package}{on(call.serial)}", Done(package=args.package))


@tool(
    name="clear_app_data",
    title="Clear an app's data",
    risk=Risk.DESTRUCTIVE,
    input=PackageArgs,
    output=Done,
    example={"package": "com.example.app"},
    describe=lambda args: f"delete all data of {args.package} (pm clear)",
)
async def clear_app_data(call: ToolCall, args: PackageArgs) -> ToolOutput:
    """Delete all of an app's data and cache (asks the user first)."""
    await call.run(ops.clear_data, call.client, args.package)
    return ToolOutput(f"cleared the data of {args.package}", Done(package=args.package))


@tool(
    name="grant_permission",
    title="Grant a runtime permission",
    risk=Risk.ACTION,
    input=PermissionArgs,
    output=PermissionState,
    example={"package": "com.example.app", "permission": "android.permission.CAMERA"},
)
async def grant_permission(call: ToolCall, args: PermissionArgs) -> ToolOutput:
    """Grant a runtime permission the app requests; reads the state back."""
    granted = await call.run(
        ops.set_permission, call.client, args.package, args.permission, grant=True
    )
    data = PermissionState(package=args.package, permission=args.permission, granted=granted)
    return ToolOutput(f"{args.permission} granted to {args.package}", data)


@tool(
    name="revoke_permission",
    title="Revoke a runtime permission",
    risk=Risk.DESTRUCTIVE,
    input=PermissionArgs,
    output=PermissionState,
    example={"package": "com.example.app", "permission": "android.permission.CAMERA"},
    describe=lambda args: f"revoke {args.permission} from {args.package} (the app is killed)",
)
async def revoke_permission(call: ToolCall, args: PermissionArgs) -> ToolOutput:
    """Revoke a runtime permission (kills the app; asks the user first)."""
    granted = await call.run(
        ops.set_permission, call.client, args.package, args.permission, grant=False
    )
    data = PermissionState(package=args.package, permission=args.permission, granted=granted)
    return ToolOutput(f"{args.permission} revoked from {args.package}", data)


TOOLS = [
    list_packages,
    package_info,
    uninstall_package,
    clear_app_data,
    grant_permission,
    revoke_permission,
]
