#!/usr/bin/env python3
"""Regenerate protocol_fixtures/ from the simulated device (see docs/fixtures.md).

    python scripts/make_fixtures.py              # every simulated fixture
    python scripts/make_fixtures.py shell-v2     # just these
    python scripts/make_fixtures.py --list

Each fixture is one session with a simulated device (the shipped default scenario), whose
`call` lines say what was asked and what came back; the test suite replays every one
(tests/wire/recording/test_protocol_fixtures.py). After writing a fixture it is replayed
here too; a fixture that does not replay cleanly is recorded again (up to 3 times), then
the script fails. Imported captures (protocol_fixtures/imported/*.pcap) are re-imported.

`mcp-FAMILY` fixtures (protocol_fixtures/mcp/) are MCP sessions through `adbwire serve
--simulate` that call every tool of a family as protocol_fixtures/mcp/plan.json says;
FAMILY.calls.json keeps the calls and their results, and a replay must give the same.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from adbwire.errors import AdbwireError
from adbwire.mcp.server.client_session import ToolStep, run_steps, serve_session
from adbwire.testing import DEVICE_FEATURES, DeviceOptions, running_device
from adbwire.testing.userland.android.apk import build_apk
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Connection
from adbwire.wire.keys import AdbKey, generate_key
from adbwire.wire.pcap import import_capture
from adbwire.wire.recording import ORIGIN_SIMULATED, RecordingTransport
from adbwire.wire.recording.calls import as_json_bytes, from_json_bytes, perform_and_note
from adbwire.wire.recording.host_driver import verify_fixture
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport

ROOT = Path(__file__).resolve().parents[1] / "protocol_fixtures"
SIMULATED = ROOT / "simulated"
IMPORTED = ROOT / "imported"
MCP = ROOT / "mcp"
ATTEMPTS = 3
RESPONSE_DELAY = 0.005
"""Seconds the simulated device waits before each packet, so a command's exit never races
the client's close-stdin: regenerated fixtures then differ only where the device does."""
PUSH_MTIME = 1_700_000_000
V1_FEATURES = tuple(f for f in DEVICE_FEATURES if f not in ("shell_v2",))
SYNC_V1_FEATURES = tuple(
    f
    for f in DEVICE_FEATURES
    if f not in ("stat_v2", "ls_v2", "sendrecv_v2", "sendrecv_v2_dry_run_send")
)

Body = Callable[[AdbClient, RecordingTransport], None]


@dataclass
class Spec:
    description: str
    body: Body
    options: dict[str, Any] = field(default_factory=dict)
    trust: str = "key"
    """key: the device trusts our key; prompt: it accepts an offered key; none: neither."""
    timeouts: Timeouts = field(default_factory=lambda: Timeouts(connect=10, auth=10, operation=30))


def call(client: AdbClient, transport: RecordingTransport, name: str, **args: Any) -> None:
    perform_and_note(client, transport, name, args)


def shell_v2(client: AdbClient, transport: RecordingTransport) -> None:
    for command in (
        "getprop ro.product.model",
        "ls /sdcard",
        "echo to stderr >&2; exit 3",
        "nosuchcommand",
        "echo 'a b' \"c;d\" | cat",
    ):
        call(client, transport, "shell", command=command)
    call(client, transport, "shell", command="cat", stdin=as_json_bytes(b"typed\ninput\n" * 100))


def shell_v1(client: AdbClient, transport: RecordingTransport) -> None:
    for command in ("getprop ro.product.model", "ls /sdcard", "echo oops >&2; exit 3"):
        call(client, transport, "shell", command=command)


def exec_service(client: AdbClient, transport: RecordingTransport) -> None:
    call(client, transport, "exec_out", command="screencap -p")
    call(client, transport, "exec_out", command="cat /sdcard/Download/groceries.txt")
    call(client, transport, "open", service="nosuchservice:")


def file_sync(client: AdbClient, transport: RecordingTransport) -> None:
    text = b"".join(b"line %d of a file pushed by make_fixtures\n" % i for i in range(4000))
    remote = "/sdcard/Download/fixture.txt"
    call(client, transport, "push_bytes", remote=remote, data=as_json_bytes(text), mtime=PUSH_MTIME)
    call(client, transport, "stat", path=remote)
    call(client, transport, "list_dir", path="/sdcard/Download")
    call(client, transport, "pull_bytes", remote=remote)
    call(client, transport, "stat", path="/sdcard/no/such/file")


def installing(method: str) -> Body:
    def body(client: AdbClient, transport: RecordingTransport) -> None:
        apk = build_apk("com.example.fixture", version_code=3, version_name="3.0")
        call(client, transport, "install", apk=as_json_bytes(apk), method=method)
        call(client, transport, "shell", command="pm list packages com.example.fixture")
        call(client, transport, "uninstall", package="com.example.fixture")

    return body


@contextlib.contextmanager
def echo_server() -> Iterator[int]:
    """A loopback TCP server that answers one line, uppercased, then closes."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with contextlib.suppress(OSError):
            peer, _ = listener.accept()
            with peer:
                data = b""
                while b"\n" not in data and (chunk := peer.recv(65536)):
                    data += chunk
                peer.sendall(data.upper())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        thread.join(5)


def forwarding(client: AdbClient, transport: RecordingTransport) -> None:
    with echo_server() as port:
        call(
            client,
            transport,
            "forward_exchange",
            remote=f"tcp:{port}",
            send=as_json_bytes(b"hello through a forward\n"),
        )


def just_a_shell(client: AdbClient, transport: RecordingTransport) -> None:
    call(client, transport, "shell", command="getprop ro.product.model")


def rebooting(client: AdbClient, transport: RecordingTransport) -> None:
    call(client, transport, "reboot")


def rooting(client: AdbClient, transport: RecordingTransport) -> None:
    call(client, transport, "root")


def checksummed(client: AdbClient, transport: RecordingTransport) -> None:
    call(client, transport, "shell", command="getprop ro.product.model")
    call(client, transport, "exec_out", command="screencap -p")


SPECS: dict[str, Spec] = {
    "auth-signature": Spec("the device trusts the host's key: one signature", just_a_shell),
    "auth-public-key": Spec(
        "an unknown key: the host offers its public key, the user accepts",
        just_a_shell,
        {"accept_new_keys": True},
        trust="prompt",
    ),
    "auth-pending": Spec(
        "an unknown key and nobody at the device: the prompt is never accepted",
        just_a_shell,
        trust="none",
        timeouts=Timeouts(connect=10, auth=0.5, operation=30),
    ),
    "auth-none": Spec(
        "a device with ro.adb.secure=0: no AUTH", just_a_shell, {"auth_required": False}
    ),
    "shell-v2": Spec("shell v2: stdout, stderr, exit codes, stdin, quoting", shell_v2),
    "shell-v1": Spec(
        "a device without shell_v2: v1 shell, exit code from a marker",
        shell_v1,
        {"features": V1_FEATURES},
    ),
    "exec": Spec("exec: binary stdout (a PNG), a text file, a refused service", exec_service),
    "sync-v2": Spec(
        "sync with stat_v2/ls_v2/sendrecv_v2: push, stat, list, pull, a missing file", file_sync
    ),
    "sync-v1": Spec(
        "sync on a device without the v2 features", file_sync, {"features": SYNC_V1_FEATURES}
    ),
    "install-abb": Spec(
        "streamed install with abb_exec:package install -S (Android 11+), then uninstall",
        installing("abb_exec"),
    ),
    "install-cmd": Spec(
        "streamed install with exec:cmd package install -S, then uninstall", installing("cmd")
    ),
    "install-push": Spec("install by push + pm install, then uninstall", installing("push")),
    "forward": Spec(
        "forward tcp:0 -> tcp:PORT: bytes through a device stream both ways", forwarding
    ),
    "reboot": Spec("reboot: the device answers and the connection drops", rebooting),
    "root": Spec("root: adbd restarts as root and the connection drops", rooting),
    "checksummed": Spec(
        "protocol version 0x01000000 (checksums) and a 4 KiB max payload",
        checksummed,
        {"protocol_version": P.VERSION_CHECKSUMMED, "max_payload": 4096},
    ),
}


def record(name: str, spec: Spec, key: AdbKey, path: Path) -> None:
    public = key.public_key_bytes().rstrip(b"\0").decode()
    options = dict(spec.options)
    if spec.trust == "key":
        options.setdefault("authorized_keys", (public,))
    device_options = DeviceOptions(**options)
    note = f"{spec.description} (scripts/make_fixtures.py {name}, default scenario)"
    with running_device(device_options) as device:
        device.faults.response_delay = RESPONSE_DELAY
        transport = RecordingTransport(
            TcpTransport("127.0.0.1", device.port, io_timeout=30),
            path,
            origin=ORIGIN_SIMULATED,
            note=note,
        )
        try:
            connection = Connection.open(transport, [key], timeouts=spec.timeouts)
        except AdbwireError as exc:
            transport.note_call("connect", {}, {"error": type(exc).__name__})
            transport.close()
            return
        client = AdbClient(connection)
        try:
            spec.body(client, transport)
        finally:
            client.close()


def make(name: str, key: AdbKey) -> None:
    path = SIMULATED / f"{name}.jsonl"
    for attempt in range(1, ATTEMPTS + 1):
        record(name, SPECS[name], key, path)
        problems = verify_fixture(path)
        if not problems:
            print(f"wrote {path.relative_to(ROOT.parent)}")
            return
        print(f"{name}: attempt {attempt} does not replay cleanly: {problems}", file=sys.stderr)
    raise SystemExit(f"{name}: giving up after {ATTEMPTS} attempts")


def reimport_captures() -> None:
    for capture in sorted(IMPORTED.glob("*.pcap*")):
        output = capture.with_suffix(".jsonl")
        import_capture(
            capture,
            output,
            port=None,
            note=f"imported from {capture.name}: Google's adb talking to the simulated device",
        )
        print(f"wrote {output.relative_to(ROOT.parent)}")


# ------------------------------------------------------------------ MCP tool sessions
# protocol_fixtures/mcp/plan.json lists, per tool family, the calls of one MCP session on
# the simulated device; FAMILY.jsonl is its recording and FAMILY.calls.json the calls with
# their results, which tests/mcp/test_fixtures_replay.py compares on a replay.


def mcp_plan() -> dict[str, dict[str, Any]]:
    families: dict[str, dict[str, Any]] = json.loads((MCP / "plan.json").read_text())["families"]
    return families


def local_files(plan: dict[str, Any]) -> dict[str, Any]:
    """The family's files for the local root, as JSON bytes ({"apk": PACKAGE}: built here)."""
    found: dict[str, Any] = {}
    for name, content in plan.get("files", {}).items():
        apk = content.get("apk")
        found[name] = as_json_bytes(build_apk(apk, version_code=3)) if apk else content
    return found


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port: int = probe.getsockname()[1]
        return port


async def mcp_outcomes(source: dict[str, Any], sidecar: dict[str, Any]) -> list[dict[str, Any]]:
    """Run the sidecar's calls in an MCP session on `source` (simulate=... or replay=...)."""
    steps = [ToolStep.from_json(call) for call in sidecar["calls"]]
    with tempfile.TemporaryDirectory(prefix="adbwire-root-") as folder:
        for name, content in sidecar["local_files"].items():
            (Path(folder) / name).write_bytes(from_json_bytes(content))
        async with serve_session(
            **source,
            profile="full",
            allow_destructive=True,
            local_root=folder if sidecar["local_files"] else None,
            mode=sidecar["mode"],
        ) as session:
            listed = await session.call_tool("list_devices", {})
            values = {
                "serial": (listed.structured_content or {})["devices"][0]["serial"],
                "local_root": folder,
                "free_port": free_port(),
            }
            bindings = {name: values[name] for name in sidecar["bindings"]}
            return await run_steps(session, steps, bindings)


def make_mcp(family: str) -> None:
    plan = mcp_plan()[family]
    path, sidecar_path = MCP / f"{family}.jsonl", MCP / f"{family}.calls.json"
    note = (
        f"MCP session: {plan['description']} (scripts/make_fixtures.py mcp-{family}: adbwire "
        f"serve --simulate, default scenario); calls and results: {sidecar_path.name}"
    )
    files = local_files(plan)
    sidecar: dict[str, Any] = {
        "adbwire_mcp_calls": 1,
        "fixture": path.name,
        "note": note,
        "mode": plan.get("mode", "auto"),
        "bindings": ["serial", *(["local_root"] if files else []), *plan.get("bindings", [])],
        "local_files": files,
        "calls": [ToolStep.from_json(step).as_json() for step in plan["steps"]],
    }
    for attempt in range(1, ATTEMPTS + 1):
        sidecar["calls"] = anyio.run(
            mcp_outcomes, {"simulate": True, "record": path, "note": note}, sidecar
        )
        replayed: list[Any]
        try:
            replayed = anyio.run(mcp_outcomes, {"replay": path}, sidecar)
        except AdbwireError as exc:
            replayed = [str(exc)]
        if replayed == sidecar["calls"]:
            sidecar_path.write_text(json.dumps(sidecar, indent=1, ensure_ascii=False) + "\n")
            print(f"wrote {path.relative_to(ROOT.parent)} and {sidecar_path.name}")
            return
        pairs = zip(sidecar["calls"], replayed, strict=False)
        diff = [(a, b) for a, b in pairs if a != b][:1] or replayed
        print(f"mcp-{family}: attempt {attempt} replays differently: {diff}", file=sys.stderr)
    raise SystemExit(f"mcp-{family}: giving up after {ATTEMPTS} attempts")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="fixtures to make (default: all)")
    parser.add_argument("--list", action="store_true", help="list the fixtures and exit")
    args = parser.parse_args()
    families = {f"mcp-{family}": plan["description"] for family, plan in mcp_plan().items()}
    if args.list:
        for name, description in [
            *((n, s.description) for n, s in SPECS.items()),
            *families.items(),
        ]:
            print(f"{name:16} {description}")
        return
    unknown = [name for name in args.names if name not in SPECS and name not in families]
    if unknown:
        raise SystemExit(f"unknown fixtures: {', '.join(unknown)} (see --list)")
    SIMULATED.mkdir(parents=True, exist_ok=True)
    MCP.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="adbwire-fixtures-") as folder:
        key = generate_key(Path(folder) / "adbkey", comment="fixtures@adbwire")
        for name in args.names or [*SPECS, *families]:
            if name in families:
                make_mcp(name.removeprefix("mcp-"))
            else:
                make(name, key)
    if not args.names:
        reimport_captures()


if __name__ == "__main__":
    main()
