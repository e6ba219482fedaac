"""`uiautomator dump` is always fresh: streamed, or through a unique file removed before and
after; an idle timeout is retried with --compressed; a failed dump is never answered by an
older one."""

from __future__ import annotations

import pytest

from adbwire.device.parsers import parse_ui_xml
from adbwire.device.ui import UiDumpError, UiNotIdleError, dump_ui, read_ui
from adbwire.device.ui.dump import DUMP_DIR, STREAMING
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from tests.device.ui_sim import Sim, simulated

OLD_DUMP = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    '<node index="0" text="STALE" resource-id="" class="android.widget.TextView" '
    'package="old" content-desc="" bounds="[0,0][10,10]" /></hierarchy>'
)


def no_tty(inv: Invocation, command: CommandFn) -> int:
    """As on devices where /dev/tty cannot be opened: the dumper logs and says 'dumped'."""
    if inv.args and inv.args[-1] == "/dev/tty":
        inv.out("UI hierchary dumped to: /dev/tty\n")
        return 0
    return command(inv)


def test_streams_when_the_device_can() -> None:
    with simulated("notes_list") as sim:
        dump = dump_ui(sim.client)
        assert dump.method == "stream" and not dump.compressed
        assert any(e.text == "Groceries" for e in parse_ui_xml(dump.xml).elements)
        assert sim.userland.commands_named("uiautomator") == [["uiautomator", "dump", "/dev/tty"]]


def test_falls_back_to_a_fresh_file_deleted_before_and_after() -> None:
    with simulated("notes_list") as sim:
        sim.userland.hooks["uiautomator"] = no_tty
        dump = dump_ui(sim.client)
        assert dump.method == "file"
        assert any(e.text == "Groceries" for e in parse_ui_xml(dump.xml).elements)
        path = sim.userland.commands_named("uiautomator")[-1][-1]
        assert path.startswith(DUMP_DIR + "/adbwire-ui-") and path.endswith(".xml")
        removals = [c for c in sim.userland.commands_named("rm") if c[-1] == path]
        assert len(removals) == 2  # before the dump and after reading it
        assert not sim.device.files.host_path(path).exists()
        # the client is remembered as unable to stream: no second probe
        dump_ui(sim.client)
        assert [c[-1] for c in sim.userland.commands_named("uiautomator")].count("/dev/tty") == 1
        second = sim.userland.commands_named("uiautomator")[-1][-1]
        assert second != path  # a new unique name every time
        assert STREAMING.get(sim.client) is False


def test_a_failed_dump_is_never_answered_by_an_older_file() -> None:
    with simulated("notes_list") as sim:
        files = sim.device.files
        planted: list[str] = []

        def plant_first(inv: Invocation, command: CommandFn) -> int:
            # Before the first command that names the dump file runs, an older dump is there.
            path = inv.args[-1] if inv.args else ""
            if path.startswith(DUMP_DIR) and not planted:
                files.write_bytes(path, OLD_DUMP.encode(), 0o100660)
                planted.append(path)
            if inv.name == "uiautomator":  # the dump says it worked, and writes nothing
                inv.out(f"UI hierchary dumped to: {path}\n")
                return 0
            return command(inv)

        for name in ("rm", "uiautomator", "cat"):
            sim.userland.hooks[name] = plant_first
        with pytest.raises(UiDumpError, match="no dump was written"):
            dump_ui(sim.client)
        assert planted and not files.host_path(planted[0]).exists()


def idle_failure(compressed_works: bool) -> CommandFn:
    def hook(inv: Invocation, command: CommandFn) -> int:
        if compressed_works and "--compressed" in inv.args:
            return command(inv)
        inv.err("ERROR: could not get idle state.\n")
        return 0

    return hook  # type: ignore[return-value]


def install_hook(sim: Sim, hook: object) -> None:
    sim.userland.hooks["uiautomator"] = hook  # type: ignore[assignment]


def test_not_idle_is_retried_compressed() -> None:
    with simulated("settings") as sim:
        install_hook(sim, idle_failure(compressed_works=True))
        snapshot = read_ui(sim.client)
        assert snapshot.compressed
        calls = sim.userland.commands_named("uiautomator")
        assert calls == [
            ["uiautomator", "dump", "/dev/tty"],
            ["uiautomator", "dump", "--compressed", "/dev/tty"],
        ]
        full = len(
            parse_ui_xml(sim.userland.device.scenario.screens["settings"].hierarchy).elements
        )
        assert len(snapshot.hierarchy.elements) < full  # layout-only nodes were dropped


def test_never_idle_says_what_to_do() -> None:
    with simulated("settings") as sim:
        install_hook(sim, idle_failure(compressed_works=False))
        with pytest.raises(UiNotIdleError, match="animation"):
            dump_ui(sim.client)
        assert len(sim.userland.commands_named("uiautomator")) == 2


def test_no_window_is_an_error_not_an_empty_tree() -> None:
    def null_root(inv: Invocation, command: CommandFn) -> int:
        inv.err("ERROR: null root node returned by UiTestAutomationBridge.\n")
        return 0

    with simulated() as sim:
        install_hook(sim, null_root)
        with pytest.raises(UiDumpError, match="no window"):
            dump_ui(sim.client)


def test_snapshot_reads_keyboard_focus_and_toolkit() -> None:
    with simulated("note_editor") as sim:
        snapshot = read_ui(sim.client)
        assert snapshot.keyboard_shown is True
        assert snapshot.focus is not None
        assert (
            snapshot.focus.current_focus == "com.example.notes/com.example.notes.NoteEditorActivity"
        )
        assert snapshot.framework.framework == "views"
        sim.show("settings")
        compose = read_ui(sim.client)
        assert compose.framework.framework == "compose"
        assert compose.framework.compose_test_tags_exposed is False
        assert compose.keyboard_shown is False
        assert compose.signature != snapshot.signature
        assert read_ui(sim.client).signature == compose.signature
