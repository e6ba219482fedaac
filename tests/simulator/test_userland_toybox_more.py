"""rmdir, expr, hostname, getconf, pgrep/pkill, xxd and paste on the simulated device."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from tests.simulator.userland_harness import make_userland, run


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path)


@pytest.mark.parametrize(
    ("command", "out", "err", "status"),
    [
        ("expr 1 + 2", "3\n", "", 0),
        ("expr 2 '*' 3 + 1", "7\n", "", 0),
        ("expr -7 / 2; expr -7 % 2", "-3\n-1\n", "", 0),
        ("expr abc : 'a.'", "2\n", "", 0),
        ("expr abc : 'a\\(b\\)'", "b\n", "", 0),
        ("expr a '<' b", "1\n", "", 0),
        ("expr 1 = 2", "0\n", "", 1),
        ("expr 1 /", "", "expr: syntax error\n", 2),
        ("expr 1 / 0", "", "expr: division by zero\n", 2),
        ("expr a + 1", "", "expr: non-integer argument\n", 2),
        ("hostname", "localhost\n", "", 0),
        ("getconf PAGESIZE", "4096\n", "", 0),
        ("getconf NOPE", "", "getconf: bad 'NOPE'\n", 1),
        ("printf abc | xxd", "00000000: 6162 63" + " " * 34 + "abc\n", "", 0),
        ("printf abc | xxd -p", "616263\n", "", 0),
        ("printf 'a\\nb\\n' | paste -sd, -", "a,b\n", "", 0),
        ("rmdir /nope", "", "rmdir: /nope: No such file or directory\n", 1),
    ],
)
def test_commands(userland: Userland, command: str, out: str, err: str, status: int) -> None:
    result = run(userland, command)
    assert (result.out, result.err, result.status) == (out, err, status)


def test_rmdir_removes_only_empty_directories(userland: Userland) -> None:
    tmp = "/data/local/tmp"
    result = run(userland, f"mkdir -p {tmp}/a/b {tmp}/c && touch {tmp}/c/f && rmdir {tmp}/c")
    assert (result.status, result.err) == (1, f"rmdir: {tmp}/c: Directory not empty\n")
    assert run(userland, f"cd {tmp} && rmdir -p a/b && ls").out == "c\n"


def test_pgrep_and_pkill_see_the_process_table(userland: Userland) -> None:
    pid = run(userland, "pidof system_server").out.strip()
    assert run(userland, "pgrep system_server").out == f"{pid}\n"
    assert run(userland, "pgrep -l '^system_server$'").out == f"{pid} system_server\n"
    assert run(userland, "pgrep nosuch").status == 1
    result = run(userland, "sleep 30 & pkill -x sleep; wait $!; echo $?")
    assert result.out == "143\n"


def test_mount_lists_the_mounts_df_knows(userland: Userland) -> None:
    mounts = [line.split()[2] for line in run(userland, "mount").out.splitlines()]
    shown = [line.split()[-1] for line in run(userland, "df").out.splitlines()[1:]]
    assert mounts == shown and "/data" in mounts
    assert run(userland, "mount -o remount,rw /system").status == 1


def test_free_is_proc_meminfo_in_toybox_columns(userland: Userland) -> None:
    meminfo = run(userland, "cat /proc/meminfo").out
    total_kb = int(meminfo.split("MemTotal:")[1].split()[0])
    lines = run(userland, "free -k").out.splitlines()
    assert lines[0] == "\t\ttotal        used        free      shared     buffers"
    assert lines[1].split()[:2] == ["Mem:", str(total_kb)]
    assert [line.split(":")[0] for line in lines[2:]] == ["-/+ buffers/cache", "Swap"]
