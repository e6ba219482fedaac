"""The ceiling for bulk transfers: the same bytes copied file → loopback TCP → file.

The receiver is a separate process (as the simulated device is): it listens on port 0,
prints the port, accepts one connection and writes what arrives to a file with 1 MiB
`recv_into` calls. The sender reads the source file into a reused 1 MiB buffer and
`sendall`s it. Plain sockets, no protocol: what Python on this machine can move at best.

Child: `python -m benchmarks.loopback --out FILE` prints the port, then, when done, the byte
count and the CPU seconds it spent from accepting the connection on (not its start-up).
"""

from __future__ import annotations

import argparse
import resource
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.children import REPO_ROOT, module_argv

CHUNK = 1024 * 1024
TIMEOUT = 600.0


@dataclass(frozen=True)
class Copy:
    seconds: float
    sender_cpu: float
    receiver_cpu: float


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def copy_through_loopback(source: Path, destination: Path) -> Copy:
    """Move `source` to `destination` through a loopback socket: time and CPU of each end."""
    argv = module_argv("benchmarks.loopback", "--out", str(destination))
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT) as receiver:
        assert receiver.stdout is not None
        port = int(receiver.stdout.readline())
        buffer = bytearray(CHUNK)
        view = memoryview(buffer)
        started, cpu_before = time.perf_counter(), _cpu()
        with socket.create_connection(("127.0.0.1", port)) as sock, source.open("rb") as file:
            while count := file.readinto(buffer):
                sock.sendall(view[:count])
            sock.shutdown(socket.SHUT_WR)
            received_text, receiver_cpu = receiver.stdout.readline().split()  # written, closed
        elapsed, sender_cpu = time.perf_counter() - started, _cpu() - cpu_before
        receiver.wait(TIMEOUT)
    received = int(received_text)
    if received != source.stat().st_size:
        raise RuntimeError(f"loopback copy moved {received} of {source.stat().st_size} bytes")
    return Copy(elapsed, sender_cpu, float(receiver_cpu))


def _receive(out: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        print(listener.getsockname()[1], flush=True)
        connection, _peer = listener.accept()
        cpu_before = _cpu()
        buffer = bytearray(CHUNK)
        view = memoryview(buffer)
        total = 0
        with connection, out.open("wb", buffering=0) as file:
            while count := connection.recv_into(buffer):
                file.write(view[:count])
                total += count
        print(total, _cpu() - cpu_before, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True)
    _receive(parser.parse_args().out)


if __name__ == "__main__":
    main()
