"""`adbwire install` takes the same per-device heavy-job lock as the MCP tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.device.heavy_jobs import heavy_job
from adbwire.testing import SimulatedDevice
from adbwire.testing.userland.android.apk import build_apk
from tests.conftest import CliRun


def test_install_is_refused_while_another_heavy_job_holds_the_device(
    run_cli: CliRun, sim_device: SimulatedDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADBWIRE_STATE_DIR", str(tmp_path / "state"))
    apk = tmp_path / "other.apk"
    apk.write_bytes(build_apk("com.example.other", version_code=2))
    with heavy_job(sim_device.serial, "run_instrumentation com.example.notes.soak") as holder:
        status, out, err = run_cli("-s", sim_device.serial, "install", str(apk))
    assert status == 1 and "Success" not in out
    assert f"{sim_device.serial} is busy: run_instrumentation com.example.notes.soak" in err
    assert holder.since in err
    status, out, _ = run_cli("-s", sim_device.serial, "install", str(apk))
    assert (status, out.splitlines()[-1]) == (0, "Success")
