"""The real-device check script, run here against the fake bus with the simulated device
behind it: every step must pass, the capture must be a replayable USB fixture, and the
unplug/replug step must notice both."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from pathlib import Path

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire.recording import ORIGIN_REAL, load_fixture
from adbwire.wire.usb import use_context
from adbwire.wire.usb.check import main

from .fake_usb import FakeContext, FakeDevice
from .sim_bridge import usb_bridge


def simulator(factory: Callable[..., SimulatedDevice]) -> SimulatedDevice:
    return factory(DeviceOptions(accept_any_key=True))  # the check uses ~/.android/adbkey


def test_every_step_passes_and_the_capture_is_a_usb_fixture(
    sim_device_factory: Callable[..., SimulatedDevice], tmp_path: Path
) -> None:
    device = FakeDevice()
    out = io.StringIO()
    capture = tmp_path / "capture.jsonl"
    with (
        usb_bridge(device, simulator(sim_device_factory).address) as errors,
        use_context(FakeContext(device)),
    ):
        code = main(["--record", str(capture), "--note", "test run"], out)
    report = out.getvalue()
    assert code == 0, report
    assert errors == []
    steps = [line.split()[0] for line in report.splitlines()]
    assert steps == [
        "libusb", "bus", "device", "connect", "features", "exec",
        "upload", "download", "recorded", "result",
    ]  # fmt: skip
    assert "device     FAKE0001 usb:1-4 18d1:4ee7 available" in report
    assert "upload     OK 262139 bytes" in report and "download   OK 262139 bytes" in report
    assert report.splitlines()[-1] == "result     OK"
    upload = device.out_writes.index(256 * 1024)  # the upload's one WRTE payload
    assert device.out_writes[upload + 1] == 0  # was followed by the zero-length packet
    header = load_fixture(capture).header
    assert (header.transport, header.origin, header.note) == ("usb", ORIGIN_REAL, "test run")
    assert header.serial_redacted


class Watcher(io.StringIO):
    """Plays the person at the desk: unplugs and replugs the phone when told to."""

    def __init__(self, context: FakeContext, device: FakeDevice) -> None:
        super().__init__()
        self.context, self.device = context, device

    def write(self, text: str) -> int:
        if "unplug the phone now" in text:
            threading.Timer(0.05, self.context.unplug, (self.device,)).start()
        if "plug the phone back in" in text:
            threading.Timer(0.05, self.context.plug, (FakeDevice(),)).start()
        return super().write(text)


def test_unplug_and_replug_are_noticed(sim_device_factory: Callable[..., SimulatedDevice]) -> None:
    device = FakeDevice()
    context = FakeContext(device)
    out = Watcher(context, device)
    with usb_bridge(device, simulator(sim_device_factory).address), use_context(context):
        code = main(["--unplug-test"], out)
    report = out.getvalue()
    assert code == 0, report
    assert "unplug     OK the open stream failed: USB device FAKE0001" in report
    assert "unplug     OK the device is no longer listed" in report
    assert "replug     OK found again without restarting" in report


def test_no_device_is_one_failing_line() -> None:
    out = io.StringIO()
    with use_context(FakeContext()):
        assert main([], out) == 1
    assert out.getvalue().splitlines()[-1].startswith("FAIL       UsageError: no device")
