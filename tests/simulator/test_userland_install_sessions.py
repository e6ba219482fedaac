"""The simulated package manager's install sessions (what `adb install-multiple` drives)
and `bugreportz`, in the formats of real devices (samples in tests/simulator/data)."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from adbwire.testing.userland.android.apk import build_apk
from tests.simulator.userland_harness import make_userland, run

DATA = Path(__file__).parent / "data"
BASE = build_apk("com.split.app")
CONFIG = build_apk("com.split.app", split="config.en", activities=(), launcher=None)


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path)


def create(userland: Userland) -> int:
    result = run(userland, f"cmd package install-create -S {len(BASE) + len(CONFIG)} -r")
    found = re.fullmatch(r"Success: created install session \[(\d+)\]\n", result.out)
    assert found and result.status == 0, result
    return int(found.group(1))


def write(userland: Userland, session: int, name: str, data: bytes) -> str:
    command = f"cmd package install-write -S {len(data)} {session} {name} -"
    return run(userland, command, stdin=data).out


def test_a_split_install_as_a_device_answers_it(userland: Userland) -> None:
    sample = (DATA / "pm_install_session.txt").read_text().splitlines()
    session = create(userland)
    assert write(userland, session, "base.apk", BASE) == f"Success: streamed {len(BASE)} bytes\n"
    assert sample[3] == f"Success: streamed {len(BASE)} bytes"
    write(userland, session, "config.en.apk", CONFIG)
    assert run(userland, f"cmd package install-commit {session}").out == sample[5] + "\n"
    paths = run(userland, "pm path com.split.app").out.splitlines()
    assert [line.rsplit("/", 1)[1] for line in paths] == ["base.apk", "split_config.en.apk"]
    again = run(userland, f"pm install-commit {session}")
    assert again.status == 255 and f"no access to session {session}" in again.err


@pytest.mark.parametrize(
    ("splits", "failure"),
    [
        ([("config.en.apk", CONFIG)], "Full install must include a base package"),
        (
            [("base.apk", BASE), ("other.apk", build_apk("com.other", split="x"))],
            "Inconsistent package com.other in /data/app/vmdl{id}.tmp/other.apk; "
            "expected com.split.app",
        ),
        ([("base.apk", BASE), ("base2.apk", BASE)], "Split null was defined multiple times"),
        ([("base.apk", b"not a zip")], None),
    ],
    ids=["no-base", "inconsistent", "two-bases", "not-an-apk"],
)
def test_a_bad_set_of_splits_fails_at_the_commit(
    userland: Userland, splits: list[tuple[str, bytes]], failure: str | None
) -> None:
    session = create(userland)
    for name, data in splits:
        write(userland, session, name, data)
    result = run(userland, f"cmd package install-commit {session}")
    assert result.status == 1 and result.out.startswith("Failure [INSTALL_")
    if failure is not None:
        assert failure.format(id=session) in result.out
    assert run(userland, "pm path com.split.app").status == 1


def test_abandon_forgets_the_session(userland: Userland) -> None:
    session = create(userland)
    write(userland, session, "base.apk", BASE)
    assert run(userland, f"pm install-abandon {session}").out == "Success\n"
    assert run(userland, f"pm install-commit {session}").status == 255


def test_install_write_without_a_size_is_refused(userland: Userland) -> None:
    session = create(userland)
    result = run(userland, f"pm install-write {session} base.apk -", stdin=BASE)
    assert (result.status, result.out) == (1, "Error: must specify a APK size\n")


def test_bugreportz_p_prints_what_a_device_prints_and_leaves_the_zip(userland: Userland) -> None:
    result = run(userland, "bugreportz -p")
    ours = [line.split(":", 1)[0] for line in result.out.splitlines()]
    real = [line.split(":", 1)[0] for line in (DATA / "bugreportz_p.txt").read_text().splitlines()]
    assert ours[:2] == real[:2] == ["PROGRESS", "BEGIN"]
    assert ours[-2:] == real[-2:] == ["OK", "PROGRESS"]
    assert set(ours[2:-2]) == set(real[2:-2]) == {"PROGRESS"}
    begin = result.out.splitlines()[1].removeprefix("BEGIN:")
    ok = result.out.splitlines()[-2].removeprefix("OK:")
    assert begin == ok
    assert re.fullmatch(
        r"/data/user_de/0/com\.android\.shell/files/bugreports/"
        r"bugreport-[\w.]+-[\w.]+-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.zip",
        ok,
    )
    assert run(userland, f"ls -l {ok}").out.startswith("-rw-r--r-- 1 shell shell ")
    with zipfile.ZipFile(io.BytesIO(run(userland, f"cat {ok}").raw)) as archive:
        main = archive.read("main_entry.txt").decode()
        assert "SYSTEM PROPERTIES" in archive.read(main).decode()


def test_bugreportz_version_goes_to_stderr(userland: Userland) -> None:
    result = run(userland, "bugreportz -v")
    assert (result.status, result.out, result.err) == (0, "", "1.2\n")


def test_bugreportz_refuses_unknown_options(userland: Userland) -> None:
    result = run(userland, "bugreportz -x")
    assert result.status == 1 and result.err.startswith("usage: bugreportz")
