"""Loading libusb on this machine: system first, the libusb-package copy when the system
has none. Each case runs in a fresh interpreter, because usb1 loads one library per process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPORT = """
import json
from adbwire.errors import TransportError
from adbwire.wire.usb import list_usb_devices, load_libusb
try:
    devices = [d.name for d in list_usb_devices(include_without_adb=True)]
    info = load_libusb()
    print(json.dumps({"source": info.source, "path": info.path, "devices": devices}))
except TransportError as exc:
    print(json.dumps({"error": str(exc)}))
"""

NO_SYSTEM_LIBUSB = """
import usb1._libusb1 as loader
def missing():
    raise OSError(2, "cannot find a suitable libusb-1.0")
setattr(loader, "__getLibrary", missing)  # usb1's own search finds nothing
"""


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
        check=False,
    )


def report(code: str, **env: str) -> dict[str, object]:
    done = run_python(code, **env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_without_a_system_libusb_the_bundled_copy_is_loaded() -> None:
    result = report(NO_SYSTEM_LIBUSB + REPORT)
    assert result["source"] == "libusb-package"
    assert "libusb_package" in str(result["path"])
    assert result["devices"] == []  # no USB hardware on this machine


def test_bundled_copy_on_request() -> None:
    assert report(REPORT, ADBWIRE_LIBUSB="bundled")["source"] == "libusb-package"


def test_a_bad_library_path_is_a_clear_error(tmp_path: Path) -> None:
    result = report(REPORT, ADBWIRE_LIBUSB=str(tmp_path / "libusb-nothing.so"))
    assert "USB is unavailable: $ADBWIRE_LIBUSB=" in str(result["error"])


def test_system_only_without_a_system_libusb_says_so() -> None:
    result = report(NO_SYSTEM_LIBUSB + REPORT, ADBWIRE_LIBUSB="system")
    assert "no system libusb-1.0" in str(result["error"])


def _system_libusb_files() -> list[str]:
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    try:
        listing = subprocess.run(
            [ldconfig, "-p"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except OSError:
        listing = ""
    paths = {
        os.path.realpath(line.rsplit("=>", 1)[1].strip())
        for line in listing.splitlines()
        if "libusb-1.0" in line and "=>" in line
    }
    return sorted(paths)


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="hides the library with Linux mounts"
)
def test_with_the_system_libusb_really_gone_listing_is_quiet(tmp_path: Path) -> None:
    """The acceptance check of issue 5: no system libusb, USB listing and `adbwire devices`
    run, find nothing and print no error. The system library is hidden in a private mount
    namespace (this machine has one: Debian's adb package depends on it)."""
    hidden = _system_libusb_files()
    report_script = tmp_path / "report.py"
    report_script.write_text(REPORT)
    commands = [f"mount --bind /dev/null {path}" for path in hidden]
    script = " && ".join(
        [
            *commands,
            f"{sys.executable} -c \"import ctypes; ctypes.CDLL('libusb-1.0.so.0')\" 2>/dev/null"
            " && echo SYSTEM-LIBUSB-STILL-LOADS || true",
            f"{sys.executable} {report_script}",
            f"{sys.executable} -m adbwire devices",
        ]
    )
    if hidden:
        unshare = shutil.which("unshare")
        if unshare is None:
            pytest.skip("unshare(1) is needed to hide the system libusb")
        argv = [unshare, "-m", "sh", "-c", script]
    else:
        argv = ["sh", "-c", script]  # the machine has no system libusb to begin with
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if hidden and "unshare" in done.stderr and done.returncode != 0:
        pytest.skip(f"cannot make a private mount namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert "SYSTEM-LIBUSB-STILL-LOADS" not in lines
    result = json.loads(lines[0])
    assert (result["source"], result["devices"]) == ("libusb-package", [])
    assert lines[1:] == ["List of devices attached"]
