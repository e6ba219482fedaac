"""Hostile-device modes for the simulated device: a device that attacks the host.

A real device is untrusted input (a compromised or buggy adbd, a honeypot on port 5555).
These modes make the simulated device misbehave on purpose, so tests can show that adbwire
fails cleanly: a typed error, a bounded time, bounded memory. Each family plugs into the
usual `running_device(options, userland_factory=..., files=..., faults=...)`:

- output that never ends (shell, exec): `endless_output`, a rule for `hostile_userland`;
- trickle, one byte every N seconds (shell output, sync RECV DATA): `device.faults.trickle`;
- a fan-out directory tree, a listing that never ends, setuid/setgid/sticky bits:
  `files=HostileFiles(...)`;
- terminal escapes in the banner, package names and file names (`escapes`): options, a
  userland factory, planted files;
- a decompression-bomb PNG and a raw frame with a huge header (`screencap`): rules;
- below the services, where the simulated device always frames correctly, a scripted raw
  adbd (`adbd.HostileAdbd`) runs `protocol` scripts: lying packet lengths, oversized
  packets, bad magic, a repeated CNXN, an AUTH loop, and malformed sync and shell v2 replies
  (`protocol.MALFORMED_SYNC`, `protocol.MALFORMED_SHELL_V2`)::

    from adbwire.testing.hostile.adbd import HostileAdbd
    from adbwire.testing.hostile.protocol import lying_length

    with HostileAdbd(lying_length(then="silence")) as adbd:
        with AdbClient.connect_tcp(adbd.serial, []) as client:
            client.exec_out("echo hi")   # AdbTimeoutError at the operation's deadline

Example: a device whose `dumpsys battery` never ends, whose `screencap -p` is a 13000x13000
PNG bomb, whose sync LIST of /sdcard/fanout fans out without end and whose files all carry
setuid, setgid and sticky bits, with shell output trickling at one byte every 2 s::

    from adbwire.testing import DeviceOptions, running_device
    from adbwire.testing.hostile import (
        ALL_SPECIAL_BITS, HostileFiles, endless_output, hostile_userland, png_bomb_screencap,
    )

    userland = hostile_userland(endless_output("dumpsys battery"), png_bomb_screencap())
    files = HostileFiles(tmp_path, fan_out_at="/sdcard/fanout", special_mode_bits=ALL_SPECIAL_BITS)
    with running_device(DeviceOptions(auth_required=False), userland, files=files) as device:
        device.faults.trickle("shell", interval=2.0)
        ...  # connect to device.serial and watch adbwire fail cleanly

Rules are tried in order; commands no rule matches run in the wrapped userland (`base=`, the
default scenario otherwise). See docs/simulator.md ("Hostile modes") and the attack table in
docs/security.md.
"""

from __future__ import annotations

from adbwire.testing.hostile.adbd import DevicePeer, HostileAdbd
from adbwire.testing.hostile.endless import endless_chunks, endless_output
from adbwire.testing.hostile.escapes import (
    ESCAPE_FILE_NAMES,
    ESCAPE_PACKAGE_NAMES,
    ESCAPE_SEQUENCES,
    escape_banner_properties,
    escape_userland_factory,
    plant_escape_files,
)
from adbwire.testing.hostile.files import ALL_SPECIAL_BITS, HostileFiles
from adbwire.testing.hostile.screencap import bomb_png, huge_raw_screencap, png_bomb_screencap
from adbwire.testing.hostile.userland import (
    CommandMatch,
    HostileUserland,
    Invocation,
    Rule,
    hostile_userland,
    matcher,
)

__all__ = [
    "ALL_SPECIAL_BITS",
    "ESCAPE_FILE_NAMES",
    "ESCAPE_PACKAGE_NAMES",
    "ESCAPE_SEQUENCES",
    "CommandMatch",
    "DevicePeer",
    "HostileAdbd",
    "HostileFiles",
    "HostileUserland",
    "Invocation",
    "Rule",
    "bomb_png",
    "endless_chunks",
    "endless_output",
    "escape_banner_properties",
    "escape_userland_factory",
    "hostile_userland",
    "huge_raw_screencap",
    "matcher",
    "plant_escape_files",
    "png_bomb_screencap",
]
