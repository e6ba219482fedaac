"""What the numbers were measured on: CPU, cores, memory, kernel, Python, baseline versions."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata

from benchmarks.children import REPO_ROOT


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_gib() -> float | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return None


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def source_revision() -> str:
    """The commit measured, and whether src/ had uncommitted changes."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--", "src"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{commit} + uncommitted changes in src/" if changed else commit


def load_average() -> tuple[float, float, float] | None:
    try:
        return os.getloadavg()
    except OSError:
        return None


def describe(adb_version: str | None) -> dict[str, object]:
    memory = _memory_gib()
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": None if memory is None else round(memory, 1),
        "kernel": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "adbwire": _version("adbwire"),
        "adb_shell": _version("adb_shell"),
        "mcp": _version("mcp"),
        "google_adb": adb_version or "not run",
        "revision": source_revision(),
        "load_average_at_start": load_average(),
    }


def one_line(machine: dict[str, object]) -> str:
    memory = machine.get("memory_gib")
    return (
        f"adbwire {machine['revision']}; {machine['cpu']}, {machine['cores']} cores, "
        f"{memory} GiB RAM, {machine['kernel']}, "
        f"Python {machine['python']}; adb {machine['google_adb']}, adb_shell "
        f"{machine['adb_shell']}, mcp {machine['mcp']}; load average at start "
        f"{machine['load_average_at_start']}, at end {machine.get('load_average_at_end')}"
    )
