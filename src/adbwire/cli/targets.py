"""Choosing the device a command talks to: -s SERIAL (USB serial, usb:PORT-PATH, HOST:PORT
or a wireless-debugging device's mDNS name), $ADBWIRE_DEVICES and `adbwire connect` for TCP
devices, or the only device present.

An mDNS name is `NAME._adb-tls-connect._tcp` (or `._adb._tcp`), as adb names such devices,
or a bare `NAME` that is no USB or TCP device here; it is resolved within --connect-timeout.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from adbwire.cli import known_devices, targets_usb
from adbwire.cli.timeout_options import timeouts_from
from adbwire.errors import DeviceCommandError, TransportError, UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.usb.selection import DeviceCandidate, open_transport

DEVICES_VARIABLE = "ADBWIRE_DEVICES"
_MDNS_NAME = re.compile(r"[^.:\s]+")
BARE_NAME_RESOLVE_SECONDS = 3.0
"""A bare -s NAME that is no device here is looked up by mDNS this long at most: a typo must
not cost the whole connect timeout (a responder on the link answers within a second)."""
"""A bare name that may be an mDNS instance: no dot, colon or blank (not an address)."""
_SPLIT = re.compile(r"[\s,]+")
MDNS_SUFFIX_MARK = "._tcp"
"""In every name with an mDNS service suffix (adb's service types are all TCP ones): a
serial without it is no such name, and the mDNS modules stay unloaded (#20)."""


def configured_addresses() -> list[str]:
    """TCP devices named in $ADBWIRE_DEVICES (comma- or space-separated HOST:PORT), then
    those `adbwire connect` remembered."""
    text = os.environ.get(DEVICES_VARIABLE, "")
    named = [item for item in _SPLIT.split(text) if item]
    return list(dict.fromkeys([*named, *known_devices.load()]))


def choose(serial: str | None, timeouts: Timeouts) -> DeviceCandidate:
    """The device `-s serial` names, an mDNS instance name resolved to its address."""
    if serial and MDNS_SUFFIX_MARK in serial:
        from adbwire.wire.mdns.names import PAIRING_SERVICE, split_service_suffix  # noqa: PLC0415

        instance, service_type = split_service_suffix(serial)
        if service_type == PAIRING_SERVICE:
            raise UsageError(f"{serial!r} is a pairing service: adbwire pair {instance}")
        if service_type is not None:
            from adbwire.wire.mdns.browser import resolve_instance  # noqa: PLC0415 - zeroconf

            service = resolve_instance(instance, [service_type], timeout=timeouts.connect)
            return DeviceCandidate(service.address, "tcp")
    try:
        return targets_usb.choose(serial, configured_addresses())
    except UsageError as not_found:
        if not serial or not _MDNS_NAME.fullmatch(serial):
            raise
        from adbwire.wire.mdns.browser import resolve_instance  # noqa: PLC0415 - zeroconf
        from adbwire.wire.mdns.names import CONNECT_SERVICE, LEGACY_SERVICE  # noqa: PLC0415

        try:
            service = resolve_instance(
                serial,
                [CONNECT_SERVICE, LEGACY_SERVICE],
                timeout=min(timeouts.connect, BARE_NAME_RESOLVE_SECONDS),
            )
        except TransportError:  # not advertised, or no mDNS here
            raise UsageError(f"{not_found} (nor advertised by mDNS)") from None
        return DeviceCandidate(service.address, "tcp")


PROMPT_NOTICE = "adbwire: waiting for the debugging prompt on the device to be accepted…"


def announce_prompt(state: ConnectionState) -> None:
    """Say why nothing happens while the device asks its user to allow this computer."""
    if state is ConnectionState.UNAUTHORIZED:
        print(PROMPT_NOTICE, file=sys.stderr, flush=True)


def connect(args: argparse.Namespace) -> AdbClient:
    """Connect to the device the command line selects (-s, $ADBWIRE_DEVICES, or the only one),
    or to a replayed recording with --replay; --record writes the session as it happens."""
    timeouts = timeouts_from(args)
    if args.replay is not None or args.record is not None:
        from adbwire.wire.recording import ReplayKey, wrap_transport  # noqa: PLC0415
    if args.replay is not None:
        transport = wrap_transport(
            None, replay=args.replay, record=args.record, strict=args.strict_replay
        )
        return AdbClient.connect(transport, [ReplayKey()], timeouts=timeouts)
    try:
        candidate = choose(args.serial, timeouts)
    except UsageError as no_choice:
        # As adb: no device, several and no -s, or none by that name is exit 1, not 2.
        raise DeviceCommandError(str(no_choice)) from None
    if args.record is None:
        return targets_usb.connect(candidate, timeouts, on_state=announce_prompt)
    transport = wrap_transport(
        open_transport(candidate, timeouts=timeouts),
        record=args.record,
        origin=args.record_origin,
        note=args.record_note,
        redact_serial=args.redact_serial,
    )
    return AdbClient.connect(transport, timeouts=timeouts)
