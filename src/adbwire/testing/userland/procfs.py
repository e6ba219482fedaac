"""A small /proc generated from the device's state: what scripts read.

/proc/uptime, /proc/meminfo, /proc/cpuinfo, /proc/version, /proc/loadavg, and for every
process in the table /proc/PID/{cmdline,comm,status,stat}; /proc/self is the process
reading it. Numbers that the simulator does not track (memory, CPU times) are fixed but
well-formed; the formats are the kernel's (fs/proc/*.c).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, cast

from adbwire.testing.device_files import FileStat, FsError
from adbwire.testing.userland.android.state import Process

if TYPE_CHECKING:
    from adbwire.testing.userland.device import Device
    from adbwire.testing.userland.shell.interp import Shell

CPU_COUNT: Final = 4
MEM_TOTAL_KB: Final = 2_014_444
HZ: Final = 100
_PROC_FILES: Final = ("cmdline", "comm", "stat", "status")
_DIR_MODE: Final = 0o040555
_FILE_MODE: Final = 0o100444
_MEMINFO: Final = (
    ("MemTotal", MEM_TOTAL_KB), ("MemFree", 250_112), ("MemAvailable", 1_032_560),
    ("Buffers", 9_300), ("Cached", 826_140), ("SwapCached", 0), ("Active", 640_600),
    ("Inactive", 620_880), ("SwapTotal", 1_511_428), ("SwapFree", 1_511_428),
    ("Dirty", 64), ("Writeback", 0), ("AnonPages", 420_332), ("Mapped", 470_100),
    ("Shmem", 5_040), ("Slab", 90_212), ("KernelStack", 18_880), ("PageTables", 41_020),
    ("CommitLimit", 2_518_648), ("Committed_AS", 28_540_920), ("VmallocTotal", 34_359_738_367),
)  # fmt: skip


def _self(shell: Shell) -> Process | None:
    return shell.child or shell.process


def _process(shell: Shell, name: str) -> Process | None:
    if name == "self":
        return _self(shell)
    return shell.host.processes.get(int(name)) if name.isdigit() else None


def _uptime(device: Device) -> bytes:
    up = device.state.clock.uptime()
    return f"{up:.2f} {up * CPU_COUNT * 0.93:.2f}\n".encode()


def _meminfo(device: Device) -> bytes:
    return "".join(f"{f'{key}:':<16}{value:>8} kB\n" for key, value in _MEMINFO).encode()


def _cpuinfo(device: Device) -> bytes:
    abi = device.state.properties.get("ro.product.cpu.abi", "x86_64")
    blocks = []
    for cpu in range(CPU_COUNT):
        if abi.startswith("arm"):
            blocks.append(
                f"processor\t: {cpu}\nBogoMIPS\t: 38.40\n"
                "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp\n"
                "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\n"
                "CPU part\t: 0xd05\nCPU revision\t: 0\n"
            )
        else:
            blocks.append(
                f"processor\t: {cpu}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                "model\t\t: 85\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n"
                f"cpu MHz\t\t: 2199.998\ncache size\t: 39424 KB\nphysical id\t: 0\n"
                f"siblings\t: {CPU_COUNT}\ncore id\t\t: {cpu}\ncpu cores\t: {CPU_COUNT}\n"
                "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov sse2\n"
            )
    return "\n".join(blocks).encode() + b"\n"


def _version(device: Device) -> bytes:
    kernel = device.state.properties.get("ro.kernel.version", "6.1.23-android14-4")
    return (
        f"Linux version {kernel} (build-user@build-host) (Android (9796371, based on r487747) "
        "clang version 17.0.0) #1 SMP PREEMPT Mon Apr 17 20:50:58 UTC 2023\n"
    ).encode()


def _loadavg(device: Device) -> bytes:
    processes = device.processes.snapshot()
    last = max((p.pid for p in processes), default=1)
    return f"0.00 0.00 0.00 1/{len(processes)} {last}\n".encode()


_TOP: Final[dict[str, Callable[[Device], bytes]]] = {
    "uptime": _uptime,
    "meminfo": _meminfo,
    "cpuinfo": _cpuinfo,
    "version": _version,
    "loadavg": _loadavg,
}


def _status(process: Process, running: bool) -> bytes:
    state = "R (running)" if running else "S (sleeping)"
    ids = "\t".join([str(process.uid)] * 4)
    vsz = 10_900_000 if process.session else 1_200_000
    return (
        f"Name:\t{process.name[:15]}\nUmask:\t0077\nState:\t{state}\nTgid:\t{process.pid}\n"
        f"Ngid:\t0\nPid:\t{process.pid}\nPPid:\t{0 if process.pid == 1 else process.ppid}\n"
        f"TracerPid:\t0\nUid:\t{ids}\nGid:\t{ids}\nFDSize:\t64\nGroups:\t\n"
        f"VmSize:\t{vsz:>8} kB\nThreads:\t1\n"
    ).encode()


def _stat(process: Process, running: bool) -> bytes:
    state = "R" if running else "S"
    start_ticks = int(process.started * HZ)
    fields = [
        str(process.pid), f"({process.name[:15]})", state,
        str(0 if process.pid == 1 else process.ppid), str(process.session or process.pid),
        str(process.session or process.pid), "0", "-1", "4194560", "0", "0", "0", "0",
        "0", "0", "0", "0", "20", "0", "1", "0", str(start_ticks), "11173953536", "900",
    ]  # fmt: skip
    fields += ["0"] * (52 - len(fields))
    return (" ".join(fields) + "\n").encode()


def read_proc(shell: Shell, path: str) -> bytes:
    """The contents of a /proc file, or FsError as the kernel would fail."""
    device = cast("Device", shell.host)
    parts = path.strip("/").split("/")[1:]
    if len(parts) == 1 and parts[0] in _TOP:
        return _TOP[parts[0]](device)
    if len(parts) == 2 and parts[1] in _PROC_FILES:
        process = _process(shell, parts[0])
        if process is not None:
            running = process is _self(shell)
            if parts[1] == "cmdline":
                return b"".join(arg.encode() + b"\0" for arg in process.argv or (process.name,))
            if parts[1] == "comm":
                return process.name[:15].encode() + b"\n"
            if parts[1] == "status":
                return _status(process, running)
            return _stat(process, running)
    if not parts or (len(parts) == 1 and _process(shell, parts[0]) is not None):
        raise FsError.of("EISDIR", path)
    raise FsError.of("ENOENT", path)


def stat_proc(shell: Shell, path: str) -> FileStat:
    parts = path.strip("/").split("/")[1:]
    boot = cast("Device", shell.host).state.clock
    now = int(boot.now().timestamp() - boot.uptime())  # /proc entries date from boot
    process = _process(shell, parts[0]) if parts else None
    is_dir = not parts or (len(parts) == 1 and process is not None)
    exists = (
        is_dir
        or (len(parts) == 1 and parts[0] in _TOP)
        or (len(parts) == 2 and process is not None and parts[1] in _PROC_FILES)
    )
    if not exists:
        raise FsError.of("ENOENT", path)
    uid = process.uid if process is not None else 0
    return FileStat(
        mode=_DIR_MODE if is_dir else _FILE_MODE, size=0, mtime=now, atime=now, ctime=now,
        uid=uid, gid=uid, dev=0x16, ino=1, nlink=2 if is_dir else 1,
    )  # fmt: skip


def list_proc(shell: Shell, path: str) -> list[tuple[str, FileStat]]:
    parts = path.strip("/").split("/")[1:]
    if not parts:
        names = [str(p.pid) for p in shell.host.processes.snapshot()] + sorted(_TOP) + ["self"]
    elif len(parts) == 1 and _process(shell, parts[0]) is not None:
        names = list(_PROC_FILES)
    else:
        stat_proc(shell, path)
        raise FsError.of("ENOTDIR", path)
    base = path.rstrip("/")
    return [(name, stat_proc(shell, f"{base}/{name}")) for name in names]


def is_proc(path: str) -> bool:
    return path == "/proc" or path.startswith("/proc/")
