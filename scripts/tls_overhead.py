"""What TLS (wireless debugging) costs against plain TCP, on the simulated device.

    .venv/bin/python scripts/tls_overhead.py [--rounds 2] [--size-mib 64] [--echoes 1000]

The device runs in its own process (`DeviceOptions(tls=...)`, trusting a fresh key); the
client connects with `AdbClient.connect_tcp`. For each mode, alternating plain and TLS:
connect time, shell `echo` round trips, push and pull of one file. Besides wall times it
prints the CPU seconds each process spent, which stay meaningful on a busy machine where
wall times mostly measure waiting for a core. Numbers: docs/wireless.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey, generate_key
from adbwire.wire.timeouts import Timeouts

DEVICE = """
import sys
from adbwire.testing import DeviceOptions, default_userland_factory, running_device
options = DeviceOptions(tls=sys.argv[1] == "tls", authorized_keys=(sys.argv[2],))
with running_device(options, default_userland_factory) as device:
    print(device.serial, flush=True)
    sys.stdin.read()
"""
TIMEOUTS = Timeouts(connect=30, operation=300)


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(mode: str, key: AdbKey, source: Path, work: Path, echoes: int) -> None:
    public_key = key.public_key_bytes().rstrip(b"\0").decode()
    device = subprocess.Popen(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", DEVICE, mode, public_key],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert device.stdout is not None and device.stdin is not None
    try:
        serial = device.stdout.readline().strip()
        AdbClient.connect_tcp(serial, [key], timeouts=TIMEOUTS).close()  # the device's TLS key
        started_cpu, device_cpu, times = time.process_time(), process_cpu(device.pid), []
        for _ in range(20):
            started = time.perf_counter()
            AdbClient.connect_tcp(serial, [key], timeouts=TIMEOUTS).close()
            times.append(time.perf_counter() - started)
        print(
            f"{mode:5} connect: median {statistics.median(times) * 1e3:.1f} ms; CPU per "
            f"connect: client {(time.process_time() - started_cpu) / 20 * 1e3:.1f} ms, "
            f"device {(process_cpu(device.pid) - device_cpu) / 20 * 1e3:.1f} ms",
            flush=True,
        )
        with AdbClient.connect_tcp(serial, [key], timeouts=TIMEOUTS) as client:
            for _ in range(100):
                client.shell("echo hi")
            started_cpu, device_cpu, times = time.process_time(), process_cpu(device.pid), []
            for _ in range(echoes):
                started = time.perf_counter()
                client.shell("echo hi")
                times.append(time.perf_counter() - started)
            print(
                f"{mode:5} echo: median {statistics.median(times) * 1e6:.0f} us, fastest "
                f"{min(times) * 1e6:.0f} us; CPU per echo: client "
                f"{(time.process_time() - started_cpu) / echoes * 1e6:.0f} us, device "
                f"{(process_cpu(device.pid) - device_cpu) / echoes * 1e6:.0f} us",
                flush=True,
            )
            size = source.stat().st_size
            for what in ("push", "pull"):
                started_cpu, device_cpu = time.process_time(), process_cpu(device.pid)
                started = time.perf_counter()
                if what == "push":
                    client.push([source], "/data/local/tmp/tls_overhead.bin")
                else:
                    client.pull(["/data/local/tmp/tls_overhead.bin"], work / "pulled.bin")
                wall = time.perf_counter() - started
                print(
                    f"{mode:5} {what} {size >> 20} MiB: {size / wall / 2**20:.0f} MiB/s; CPU: "
                    f"client {time.process_time() - started_cpu:.2f} s, device "
                    f"{process_cpu(device.pid) - device_cpu:.2f} s",
                    flush=True,
                )
    finally:
        device.stdin.close()
        device.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--echoes", type=int, default=1000)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        key = generate_key(work / "adbkey", comment="tls-overhead@adbwire")
        source = work / "source.bin"
        source.write_bytes(os.urandom(args.size_mib << 20))
        for _ in range(args.rounds):
            for mode in ("plain", "tls"):
                measure(mode, key, source, work, args.echoes)


if __name__ == "__main__":
    main()
