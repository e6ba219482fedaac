"""Processes, network, activity stack, fragments and instrumentation against the simulator,
in the layouts of new and old Android releases."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from adbwire.device import activity_stack, instrumentation, network, output_cap, processes
from adbwire.device.errors import AlreadyExistsError, NotFoundError
from adbwire.device.parsers.activities import parse_activities
from adbwire.device.parsers.instrumentation import CaseResult, CaseStarted
from adbwire.errors import AdbTimeoutError, OutputTooLargeError, UsageError
from adbwire.testing import DeviceFiles, SimulatedDevice
from adbwire.testing.scenario import load_scenario
from adbwire.testing.userland import Userland
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from tests.mcp.harness import device_client

__all__ = ["device_client"]
NOTES = "com.example.notes"


@pytest.fixture
def old_device_client(
    sim_device_factory: Callable[..., SimulatedDevice],
    adb_key: AdbKey,
    request: pytest.FixtureRequest,
) -> Iterator[AdbClient]:
    """A simulated phone that says it runs SDK `request.param` (23: toolbox ps; 28: stacks)."""
    scenario = load_scenario()
    scenario.properties["ro.build.version.sdk"] = str(request.param)
    device = sim_device_factory(userland_factory=lambda files: Userland(scenario, files))
    with AdbClient.connect_tcp(device.serial, [adb_key]) as client:
        yield client


def launch_notes(client: AdbClient, activity: str = ".NotesListActivity") -> None:
    client.shell_argv(["am", "start", "-W", "-n", f"{NOTES}/{activity}"])


def test_processes_from_toybox_ps(device_client: AdbClient) -> None:
    launch_notes(device_client)
    listing = processes.list_processes(device_client)
    assert listing.source == "toybox"
    notes = processes.select(listing.processes, package=NOTES)
    assert [p.name for p in notes] == [NOTES]
    assert notes[0].uid == 10190 and notes[0].user == "u0_a190" and notes[0].state == "S"
    init = next(p for p in listing.processes if p.pid == 1)
    assert (init.name, init.ppid, init.user) == ("init", 0, "root")


@pytest.mark.parametrize("old_device_client", [23], indirect=True)
def test_processes_from_old_toolbox_ps(old_device_client: AdbClient) -> None:
    launch_notes(old_device_client)
    listing = processes.list_processes(old_device_client)
    assert listing.source == "toolbox"
    notes = processes.select(listing.processes, package=NOTES)
    assert [(p.name, p.user, p.uid) for p in notes] == [(NOTES, "u0_a190", None)]
    assert any(p.name == "ps" and p.state == "R" for p in listing.processes)


def test_network_follows_wifi_data_and_airplane_mode(device_client: AdbClient) -> None:
    info = network.network_info(device_client)
    assert (info.wifi.enabled, info.wifi.connected, info.wifi.ssid) == (True, True, "AndroidWifi")
    assert info.airplane_mode is False
    assert info.default_network is not None
    assert (info.default_network.transport, info.default_network.validated) == ("WIFI", True)
    assert info.route is not None and info.route.interface == "wlan0"
    wlan = next(i for i in info.interfaces if i.name == "wlan0")
    assert wlan.up and wlan.addresses == ("10.0.2.16/24",)

    device_client.shell("settings put global adbwire_sim_captive_portal 1")
    captive = network.network_info(device_client).default_network
    assert captive is not None and (captive.validated, captive.captive_portal) == (False, True)

    device_client.shell("svc wifi disable")
    on_cell = network.network_info(device_client)
    assert (on_cell.wifi.enabled, on_cell.wifi.connected) == (False, False)
    assert on_cell.default_network is not None
    assert on_cell.default_network.transport == "CELLULAR"
    assert on_cell.route is not None and on_cell.route.interface == "rmnet_data0"

    device_client.shell("cmd connectivity airplane-mode enable")
    offline = network.network_info(device_client)
    assert offline.airplane_mode is True
    assert offline.default_network is not None and offline.default_network.network_id is None
    assert offline.route is None


@pytest.mark.parametrize("old_device_client", [28], indirect=True)
def test_network_on_android_9_without_cmd_wifi_status(old_device_client: AdbClient) -> None:
    info = network.network_info(old_device_client)
    assert (info.wifi.enabled, info.wifi.connected, info.wifi.ssid) == (True, True, "AndroidWifi")
    assert info.default_network is not None and info.default_network.validated is True


def test_activity_stack_in_the_task_layout(device_client: AdbClient) -> None:
    launch_notes(device_client)
    launch_notes(device_client, ".SettingsActivity")
    stack = activity_stack.activity_stack(device_client)
    top = stack.tasks[0]
    assert top.activity_type == "standard"
    assert [(a.component.short, a.state) for a in top.activities] == [
        (f"{NOTES}/.SettingsActivity", "RESUMED"),
        (f"{NOTES}/.NotesListActivity", "STOPPED"),
    ]
    assert stack.tasks[-1].activity_type == "home"


@pytest.mark.parametrize("old_device_client", [28], indirect=True)
def test_activity_stack_in_the_stack_layout(old_device_client: AdbClient) -> None:
    launch_notes(old_device_client)
    text = old_device_client.shell("dumpsys activity activities").stdout.decode()
    assert "Stack #" in text and "TaskRecord{" in text and "Task{" not in text
    stack = activity_stack.activity_stack(old_device_client)
    assert stack.resumed is not None and stack.resumed.short == f"{NOTES}/.NotesListActivity"
    assert [t.activity_type for t in stack.tasks] == ["standard", "home"]
    assert stack.tasks[0].activities[0].state is None  # only -a prints states before Android 10
    detailed = old_device_client.shell("dumpsys activity -a activities").stdout.decode()
    assert "* Hist #" in detailed and "* Hist #" not in text
    assert parse_activities(detailed).tasks[0].activities[0].state == "RESUMED"


def test_fragments_of_the_resumed_activity(device_client: AdbClient) -> None:
    launch_notes(device_client)
    launch_notes(device_client, ".NoteEditorActivity")
    found = activity_stack.current_fragments(device_client, NOTES)
    assert found.activity.component == f"{NOTES}/.NoteEditorActivity"
    assert found.activity.resumed and found.activity.fragment_host and found.activities == 2
    assert [(f.name, f.depth, f.parent, f.hidden, f.tag) for f in found.activity.fragments] == [
        ("NavHostFragment", 0, None, False, None),
        ("NoteEditorFragment", 1, "NavHostFragment", False, None),
        ("FormattingSheetFragment", 1, "NavHostFragment", True, "formatting"),
    ]


def test_a_compose_screen_hosts_no_fragments_and_a_stopped_app_none(
    device_client: AdbClient,
) -> None:
    with pytest.raises(NotFoundError, match="no running activity"):
        activity_stack.current_fragments(device_client, NOTES)
    launch_notes(device_client, ".VaultActivity")
    vault = activity_stack.current_fragments(device_client, NOTES)
    assert vault.activity.fragment_host is False and vault.activity.fragments == ()


def test_an_instrumented_run_with_passes_a_failure_and_a_crash(
    device_client: AdbClient, tmp_path: Path
) -> None:
    target = instrumentation.find_instrumentation(device_client, "com.example.notes.test")
    assert (target.runner, target.target_package) == (
        "androidx.test.runner.AndroidJUnitRunner",
        NOTES,
    )
    events: list[CaseStarted | CaseResult] = []
    run = instrumentation.run_instrumentation(
        device_client, target, tmp_path / "run.log", on_event=events.append, timeout=60
    )
    report = run.report
    assert [(t.method, t.outcome) for t in report.tests] == [
        ("opensTheList", "passed"),
        ("addsANote", "passed"),
        ("savesTheTitle", "failed"),
        ("discardsAnEmptyNote", "skipped"),
        ("showsCounts", "crashed"),
    ]
    assert report.tests[2].trace is not None and "NoteEditorTest.kt:42" in report.tests[2].trace
    assert not report.success and report.result_code == 0
    assert run.log_path.read_bytes().count(b"INSTRUMENTATION_STATUS_CODE") == 8
    assert run.log_bytes == run.log_path.stat().st_size
    assert not list(tmp_path.glob("*.part"))
    assert sum(isinstance(e, CaseStarted) for e in events) == 4  # the ignored one never starts


def test_a_filtered_run_passes(device_client: AdbClient, tmp_path: Path) -> None:
    target = instrumentation.find_instrumentation(device_client, "com.example.notes.test")
    run = instrumentation.run_instrumentation(
        device_client,
        target,
        tmp_path / "ok.log",
        tests=["com.example.notes.NotesListTest", "com.example.notes.NoteEditorTest#nope"],
        timeout=60,
    )
    assert run.report.success and run.report.count("passed") == 2


def test_instrumentation_arguments_are_checked(device_client: AdbClient) -> None:
    with pytest.raises(
        NotFoundError, match=r"installed: com\.example\.notes\.soak, com\.example\.notes\.test"
    ):
        instrumentation.find_instrumentation(device_client, "com.nope.test")
    target = instrumentation.find_instrumentation(device_client, "com.example.notes.test")
    for tests, arguments in (
        (["a.B; reboot"], {}),
        ([], {"class": "a.B"}),
        ([], {"x": "line\nbreak"}),
        ([], {"bad key": "v"}),
    ):
        with pytest.raises(UsageError):
            instrumentation.instrument_argv(target, tests, arguments)
    too_many_filters = [f"a.B{n}" for n in range(instrumentation.MAX_FILTERS + 1)]
    with pytest.raises(UsageError, match="test filters"):
        instrumentation.instrument_argv(target, too_many_filters)
    too_many_arguments = {f"k{n}": "v" for n in range(instrumentation.MAX_ARGUMENTS + 1)}
    with pytest.raises(UsageError, match="runner arguments"):
        instrumentation.instrument_argv(target, (), too_many_arguments)
    with pytest.raises(UsageError, match="too long"):
        instrumentation.instrument_argv(target, (), {"k": "v" * 1025})
    argv = instrumentation.instrument_argv(target, ["a.B#c"], {"size": "small", "debug": "a b"})
    assert argv[4:] == [
        "-e",
        "class",
        "a.B#c",
        "-e",
        "size",
        "small",
        "-e",
        "debug",
        "a b",
        target.component,
    ]


def test_stop_target_ends_a_run_on_the_device(device_client: AdbClient, tmp_path: Path) -> None:
    target = instrumentation.find_instrumentation(device_client, "com.example.notes.soak")
    started = threading.Event()

    def on_event(event: CaseStarted | CaseResult) -> None:
        if isinstance(event, CaseStarted):
            started.set()

    errors: list[BaseException] = []

    def run() -> None:
        try:
            instrumentation.run_instrumentation(
                device_client, target, tmp_path / "soak.log", on_event=on_event, timeout=120
            )
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert started.wait(30)
    assert device_client.shell(f"pidof {NOTES}").stdout.strip()
    instrumentation.stop_target(device_client, target)  # a second stream of the same link
    worker.join(30)
    assert not worker.is_alive() and not errors
    assert (tmp_path / "soak.log").read_bytes().endswith(b"INSTRUMENTATION_CODE: 0\n")
    assert device_client.shell(f"pidof {NOTES}").exit_code == 1


def test_a_run_cut_short_leaves_an_incomplete_log_and_the_app_running(
    device_client: AdbClient, tmp_path: Path
) -> None:
    target = instrumentation.find_instrumentation(device_client, "com.example.notes.soak")
    with pytest.raises(AdbTimeoutError):
        instrumentation.run_instrumentation(device_client, target, tmp_path / "s.log", timeout=5)
    assert [p.name for p in tmp_path.iterdir()] == ["s.incomplete.log"]
    assert b"test=syncsForAMinute" in (tmp_path / "s.incomplete.log").read_bytes()
    # Closing the stream did not stop the tests: only stopping the target does.
    assert device_client.shell(f"pidof {NOTES}").stdout.strip()
    instrumentation.stop_target(device_client, target)
    assert device_client.shell(f"pidof {NOTES}").exit_code == 1


def test_a_log_another_run_is_writing_is_refused(device_client: AdbClient, tmp_path: Path) -> None:
    target = instrumentation.find_instrumentation(device_client, "com.example.notes.test")
    (tmp_path / "w.log.part").write_bytes(b"another run's output")
    with pytest.raises(AlreadyExistsError, match="another run is writing"):
        instrumentation.run_instrumentation(device_client, target, tmp_path / "w.log", timeout=60)
    assert (tmp_path / "w.log.part").read_bytes() == b"another run's output"
    (tmp_path / "a-file").write_bytes(b"")
    with pytest.raises(UsageError, match="log's folder"):
        instrumentation.run_instrumentation(device_client, target, tmp_path / "a-file" / "x.log")


def test_a_run_past_the_output_cap_stops_and_keeps_what_came(
    device_client: AdbClient, tmp_path: Path
) -> None:
    target = instrumentation.find_instrumentation(device_client, "com.example.notes.test")
    with output_cap.limited_to(1500), pytest.raises(OutputTooLargeError):
        instrumentation.run_instrumentation(device_client, target, tmp_path / "r.log", timeout=60)
    kept = (tmp_path / "r.incomplete.log").read_bytes()
    assert 0 < len(kept) <= 1500 and not (tmp_path / "r.log").exists()


def test_without_ip_the_route_and_address_come_from_the_connectivity_dump(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey
) -> None:
    def without_ip(files: DeviceFiles) -> Userland:
        userland = Userland(load_scenario(), files)
        del userland.device._commands["ip"]  # an `ip` the shell may not run
        return userland

    device = sim_device_factory(userland_factory=without_ip)
    with AdbClient.connect_tcp(device.serial, [adb_key]) as client:
        info = network.network_info(client)
    assert info.route is not None
    assert (info.route.interface, info.route.gateway) == ("wlan0", "10.0.2.2")
    assert [(i.name, i.addresses) for i in info.interfaces] == [("wlan0", ("10.0.2.16/24",))]
