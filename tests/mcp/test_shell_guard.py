"""The few catastrophic commands run_shell refuses before anyone is asked."""

from __future__ import annotations

import pytest

from adbwire.device.errors import RefusedError
from adbwire.mcp.shell_guard import check_command

REFUSED = [
    "rm -rf /",
    "rm -rf /*",
    "rm -fr /sdcard/",
    "rm -r -f /data",
    "cd /sdcard && rm -rf /system",
    "echo hi; rm --recursive -f /storage",
    "echo $(rm -rf /)",
    "su -c rm -Rf /",
    "su 0 rm -rf /data",
    "sh -c 'rm -rf /'",
    "/system/bin/rm -rf /vendor",
    "mkfs.ext4 /dev/block/sda",
    "make_ext4fs /dev/block/mmcblk0p1",
    "dd if=/dev/zero of=/dev/block/mmcblk0",
    "cat x > /dev/block/sda1",
    "am broadcast -a android.intent.action.FACTORY_RESET",
    "am broadcast -a android.intent.action.MASTER_CLEAR",
    "recovery --wipe_data",
]
ALLOWED = [
    "ls -l /sdcard",
    "rm /sdcard/Download/old.txt",
    "rm -rf /sdcard/Download/cache",
    "rm -rf /data/local/tmp/build",
    "dd if=/sdcard/a of=/sdcard/b",
    "echo rm -rf / is dangerous",  # only text: well, still refused below? see test
]


@pytest.mark.parametrize("command", REFUSED)
def test_refused(command: str) -> None:
    with pytest.raises(RefusedError, match="refused before asking"):
        check_command(command)


@pytest.mark.parametrize("command", ALLOWED[:-1])
def test_ordinary_commands_pass(command: str) -> None:
    check_command(command)


def test_it_is_a_guard_rail_not_a_parser() -> None:
    """Words that merely look like a catastrophic command are not refused."""
    check_command(ALLOWED[-1])


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /storage/emulated/0",
        "rm -rf /sdcard/*",
        "rm -rf /sdcard/.",
        "rm -rf //data",
        "cd / && rm -rf data",
        "find /sdcard/ -delete",
        "rm -rf /data/data",
        "rm -rf /data/media",
        "rm -rf ${EXTERNAL_STORAGE}",
        "eval rm -rf /sdcard",
        "xargs rm -rf /sdcard",
        "rm -rf /a/../sdcard/",
    ],
)
def test_spellings_of_a_whole_area_are_refused_too(command: str) -> None:
    with pytest.raises(RefusedError):
        check_command(command)


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /data/local/tmp/build",
        "rm -rf /sdcard/Download/old",
        "rm -r cache_dir",
        "find /sdcard/x -name '*.tmp'",
    ],
)
def test_ordinary_cleanups_are_not_refused(command: str) -> None:
    check_command(command)
