"""Owners and modes in the simulated file tree, and /system/bin as an Android image has it."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from tests.simulator.userland_harness import make_userland, run

TMP = "/data/local/tmp"


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path / "device")


def test_data_local_tmp_is_drwxrwx__x_shell_shell(userland: Userland) -> None:
    assert run(userland, f"stat -c '%A %U %G' {TMP}").out == "drwxrwx--x shell shell\n"
    listing = run(userland, "stat -c '%n %A %U %G' / /data /data/local").out
    assert listing == (
        "/ drwxr-xr-x root root\n/data drwxrwx--x system system\n/data/local drwxr-x--x root root\n"
    )


def test_a_file_written_the_way_push_writes_it_belongs_to_shell(userland: Userland) -> None:
    files = userland.device.files
    with files.open_write(f"{TMP}/pushed", 0o100666) as handle:  # what sync SEND does
        handle.write(b"data")
    assert (
        run(userland, f"stat -c '%a %U %G %u %g' {TMP}/pushed").out == "666 shell shell 2000 2000\n"
    )
    assert (files.stat(f"{TMP}/pushed").uid, files.stat(f"{TMP}/pushed").gid) == (2000, 2000)


def test_after_adb_root_new_files_belong_to_root(userland: Userland) -> None:
    files = userland.device.files
    files.write_file(f"{TMP}/before", b"")
    userland.on_root_changed(True)
    files.write_file(f"{TMP}/after", b"")
    run(userland, f"mkdir {TMP}/dir")
    listing = run(userland, f"stat -c '%n %U %G' {TMP}/before {TMP}/after {TMP}/dir").out
    assert listing == f"{TMP}/before shell shell\n{TMP}/after root root\n{TMP}/dir root root\n"


def test_owner_follows_a_rename_and_is_forgotten_on_removal(userland: Userland) -> None:
    userland.on_root_changed(True)
    run(userland, f"echo x > {TMP}/a && mv {TMP}/a {TMP}/b")
    assert run(userland, f"stat -c %U {TMP}/b").out == "root\n"
    userland.on_root_changed(False)
    run(userland, f"rm {TMP}/b && echo y > {TMP}/b")
    assert run(userland, f"stat -c %U {TMP}/b").out == "shell\n"


def test_shared_storage_files_are_group_media_rw(userland: Userland) -> None:
    result = run(userland, "echo x > /sdcard/new.txt && stat -c '%U %G' /sdcard/new.txt")
    assert result.out == "shell media_rw\n"


def test_listing_reports_the_same_owners_as_stat(userland: Userland) -> None:
    run(userland, f"echo x > {TMP}/f")
    entries = dict(userland.device.files.listdir(TMP))
    assert (entries["f"].uid, entries["f"].gid) == (2000, 2000)


def test_system_bin_holds_toybox_links_and_every_command(userland: Userland) -> None:
    names = run(userland, "ls /system/bin").out.split()
    for command in ("toybox", "ls", "md5sum", "dd", "sh", "am", "pm", "cmd", "dumpsys", "getprop"):
        assert command in names, command
    for name in names:
        assert userland.device.lookup(name) is not None, name
    link = run(userland, "ls -l /system/bin/md5sum").out
    assert link.startswith("l") and link.endswith("/system/bin/md5sum -> toybox\n")
    assert " root shell " in link
    assert run(userland, "[ -x /system/bin/toybox ] && echo yes").out == "yes\n"
    assert run(userland, "readlink /system/bin/sh").out == "mksh\n"


def test_system_bin_is_read_only(userland: Userland) -> None:
    result = run(userland, "rm /system/bin/ls")
    assert result.status == 1
    assert "Read-only file system" in result.err
