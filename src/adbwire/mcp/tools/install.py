"""Installing an APK from the local root, with semantic options and a version check."""

from __future__ import annotations

from pydantic import Field

from adbwire.device import install as ops
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Result
from adbwire.mcp.tools.heavy_lock import holding_heavy_job
from adbwire.wire.services.install_result import InstallOptions


class InstallArgs(DeviceArgs):
    apk: str = Field(max_length=1024)
    replace: bool = True
    allow_downgrade: bool = False
    grant_permissions: bool = False
    allow_test_packages: bool = False


class Installed(Result):
    package: str
    version_name: str | None = None
    version_code: int | None = None
    method: str


@tool(
    name="install_apk",
    title="Install an APK",
    risk=Risk.ACTION,
    input=InstallArgs,
    output=Installed,
    example={"apk": "builds/app-debug.apk"},
    host_files=True,
    long_running=True,
)
async def install_apk(call: ToolCall, args: InstallArgs) -> ToolOutput:
    """Install an APK from the local root; checks the device has its version after."""
    apk = call.app.local_root.resolve(args.apk)
    if not apk.is_file():
        raise ToolFailure(ErrorCode.NOT_FOUND, f"{args.apk}: no such file under the local root")
    options = InstallOptions(
        replace=args.replace,
        downgrade=args.allow_downgrade,
        grant_permissions=args.grant_permissions,
        allow_test=args.allow_test_packages,
    )
    assert call.serial is not None
    async with holding_heavy_job(call.serial, f"install_apk {apk.name}"):  # one job at a time
        done = await call.run(
            ops.install_apk,
            call.client,
            apk,
            options,
            cap=call.app.policy.max_transfer_bytes,
            progress=call.progress_from_thread(f"installing {apk.name}"),
        )
    data = Installed(
        package=done.package,
        version_name=done.version_name,
        version_code=done.version_code,
        method=done.method,
    )
    return ToolOutput(f"installed {done.package} {done.version_name or ''}".strip(), data)


TOOLS = [install_apk]
