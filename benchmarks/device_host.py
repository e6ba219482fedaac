"""The simulated device in a process of its own, so the client's CPU and RSS are its own.

Child side (`python -m benchmarks.device_host --root DIR --authorized-keys FILE [--link-mbps N]
[--max-payload BYTES] [--checksummed] [--sync-v1]`): runs a SimulatedDevice with the default
scenario (and, when asked, a slow link, small payloads, protocol version 0x01000000 or only
sync v1), its files under DIR, prints "HOST:PORT" as the
first stdout line and stops when its stdin closes (so it never outlives the benchmark). Each
"cpu" line on its stdin is answered with its own CPU seconds (getrusage: microsecond
precision, where /proc/PID/stat counts 10 ms ticks).

Parent side: `DeviceProcess` starts and stops it, and knows where device paths live on disk.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from benchmarks.children import REPO_ROOT, module_argv

START_TIMEOUT = 30.0


class DeviceProcess:
    """A simulated device running in a child process (files under `root`)."""

    def __init__(self, root: Path, authorized_keys: Path, options: Sequence[str] = ()) -> None:
        self.root = root
        self._keys = authorized_keys
        self._options = tuple(options)
        self._process: subprocess.Popen[str] | None = None
        self._query_lock = threading.Lock()
        self.serial = ""

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    @property
    def host_port(self) -> tuple[str, int]:
        host, _sep, port = self.serial.rpartition(":")
        return host, int(port)

    def cpu_seconds(self) -> float:
        """User + system CPU seconds the device process has used so far."""
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        with self._query_lock:
            process.stdin.write("cpu\n")
            process.stdin.flush()
            return float(process.stdout.readline())

    def host_path(self, device_path: str) -> Path:
        """Where a device file lives on this machine (the simulator's file tree)."""
        return self.root / device_path.lstrip("/")

    def start(self) -> DeviceProcess:
        argv = module_argv(
            "benchmarks.device_host",
            "--root",
            str(self.root),
            "--authorized-keys",
            str(self._keys),
            *self._options,
        )
        self._process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline().strip()  # the child prints it at once
        if not line:
            self.stop()
            raise RuntimeError("the simulated device process did not start")
        self.serial = line
        return self

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(START_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(START_TIMEOUT)
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> DeviceProcess:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


SYNC_V2 = ("stat_v2", "ls_v2", "sendrecv_v2")


def _serve(root: Path, keys_file: Path, args: argparse.Namespace) -> None:
    from adbwire.testing import (  # noqa: PLC0415
        DEVICE_FEATURES,
        DeviceFiles,
        DeviceOptions,
        SimulatedDevice,
    )
    from adbwire.wire import packets as P  # noqa: PLC0415

    keys = tuple(line.strip() for line in keys_file.read_text().splitlines() if line.strip())
    root.mkdir(parents=True, exist_ok=True)
    features: tuple[str, ...] = DEVICE_FEATURES
    if args.sync_v1:
        features = tuple(f for f in features if not f.startswith(SYNC_V2))
    options = DeviceOptions(
        authorized_keys=keys,
        link_mbps=args.link_mbps,
        max_payload=args.max_payload,
        protocol_version=P.VERSION_CHECKSUMMED if args.checksummed else P.VERSION_SKIP_CHECKSUM,
        features=features,
    )
    with SimulatedDevice(options, files=DeviceFiles(root)) as device:
        print(device.serial, flush=True)
        for line in sys.stdin:  # until the parent closes our stdin
            if line.strip() == "cpu":
                usage = resource.getrusage(resource.RUSAGE_SELF)
                print(usage.ru_utime + usage.ru_stime, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--authorized-keys", type=Path, required=True)
    parser.add_argument("--link-mbps", type=float)
    parser.add_argument("--max-payload", type=int, default=1024 * 1024)
    parser.add_argument("--checksummed", action="store_true", help="protocol 0x01000000")
    parser.add_argument("--sync-v1", action="store_true", help="no stat/ls/sendrecv v2")
    args = parser.parse_args()
    _serve(args.root, args.authorized_keys, args)


if __name__ == "__main__":
    main()
