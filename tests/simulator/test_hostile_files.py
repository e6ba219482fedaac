"""Hostile file-tree modes: a fan-out tree, a listing that never ends, special mode bits."""

from __future__ import annotations

import stat
from pathlib import Path

from adbwire.testing import DeviceOptions, running_device
from adbwire.testing.hostile import ALL_SPECIAL_BITS, HostileFiles
from adbwire.wire.services import sync
from adbwire.wire.services.sync.listing import iter_dir
from tests.simulator.hostile_helpers import hostile_device
from tests.simulator.protocol_peer import online_peer
from tests.simulator.sync_peer import Sync


def test_every_fan_out_directory_lists_two_more_over_list_and_lis2(tmp_path: Path) -> None:
    files = HostileFiles(tmp_path, fan_out_at="/sdcard/fanout")
    with hostile_device(files=files) as (_device, client):
        assert "fanout" in {entry.name for entry in client.list_dir("/sdcard")}
        path = "/sdcard/fanout"
        for depth in range(60):  # as deep as anyone cares to walk: it never bottoms out
            entries = client.list_dir(path)
            assert [(e.name, e.stat.is_dir) for e in entries] == [("d0", True), ("d1", True)]
            assert client.stat(path).is_dir
            path += f"/d{depth % 2}"
    with (
        running_device(DeviceOptions(accept_any_key=True), files=files) as device,
        online_peer(device.address) as peer,
    ):
        session = Sync(peer.open_ok("sync:"))
        for v2 in (False, True):
            listing = session.listing("/storage/emulated/0/fanout/d1/d0", v2=v2)
            assert sorted(listing) == [".", "..", "d0", "d1"]
        mode = session.stat_v1("/sdcard/fanout/d0/d1/d1")[1]
        assert stat.S_ISDIR(mode)


def test_fan_out_tree_over_ls2_without_the_v2_features(tmp_path: Path) -> None:
    files = HostileFiles(tmp_path, fan_out_at="/data/local/tmp/tree", fan_out=3)
    v1_features = ("shell_v2", "cmd")
    with hostile_device(files=files, options={"features": v1_features}) as (_device, client):
        assert [e.name for e in client.list_dir("/data/local/tmp/tree/d2")] == ["d0", "d1", "d2"]


def test_endless_listing_never_sends_done(tmp_path: Path) -> None:
    files = HostileFiles(tmp_path, endless_listing_at="/sdcard/endless")
    with hostile_device(files=files) as (_device, client):
        with client.sync_session(timeout=30) as session:
            names = []
            for entry in iter_dir(session, "/sdcard/endless"):
                names.append(entry.name)
                if len(names) == 20_000:
                    break
            assert names[:2] == [".", ".."]
            assert names[-1] == "entry00019997"
        # The device is still usable afterwards, on the same connection.
        assert "endless" in {entry.name for entry in client.list_dir("/sdcard")}


def test_special_mode_bits_are_reported_for_files(tmp_path: Path) -> None:
    files = HostileFiles(
        tmp_path, special_mode_bits=ALL_SPECIAL_BITS, special_dir_mode_bits=stat.S_ISGID
    )
    files.write_bytes("/sdcard/Download/tool", b"#!/system/bin/sh\n", mode=0o100755)
    with hostile_device(files=files) as (_device, client):
        st = client.stat("/sdcard/Download/tool")
        assert stat.S_IMODE(st.mode) == 0o7755
        assert st.is_file
        (entry,) = [e for e in client.list_dir("/sdcard/Download") if e.name == "tool"]
        assert stat.S_IMODE(entry.stat.mode) == 0o7755
        assert stat.S_IMODE(client.stat("/sdcard/Download").mode) & stat.S_ISGID
        lstat = sync.stat(client.connection, "/sdcard/Download/tool", follow=False)
        assert stat.S_IMODE(lstat.mode) == 0o7755
        assert client.shell("ls -l /sdcard/Download/tool").stdout.startswith(b"-rwsr-sr-t")
        # The bits are only reported: the host file keeps its real mode.
        host_mode = files.host_path("/sdcard/Download/tool").stat().st_mode
        assert not host_mode & ALL_SPECIAL_BITS
