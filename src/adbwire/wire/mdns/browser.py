"""Bounded mDNS browsing and resolution of wireless-debugging devices (python-zeroconf).

Every call opens its own zeroconf instance (IPv4 multicast on every interface), waits at most
the time it is given and closes it. What answers is whoever is on the local network: at most
`max_instances` instances are kept, names over 63 bytes and instances without an address or
port are dropped (and counted), TXT records are capped (`names.decode_txt`).

A zeroconf thread delivers browse events; we resolve in the caller's thread, waiting on a
queue in slices so Ctrl-C stops a wait at once.
"""

from __future__ import annotations

import contextlib
import os
import queue
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import zeroconf
from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf

from adbwire.errors import AdbTimeoutError, ConnectFailedError, TransportError
from adbwire.wire.mdns.names import (
    MAX_ADDRESSES,
    SERVICE_TYPES,
    MdnsService,
    decode_txt,
    full_name,
    instance_from_full_name,
)

__all__ = [
    "DEFAULT_BROWSE_SECONDS",
    "MAX_INSTANCES",
    "MDNS_VARIABLE",
    "Discovery",
    "browse",
    "find_instance",
    "mdns_disabled",
    "mdns_stack",
    "resolve_instance",
]

DEFAULT_BROWSE_SECONDS: Final = 1.0
MDNS_VARIABLE: Final = "ADBWIRE_MDNS"
MAX_INSTANCES: Final = 64
_SLICE: Final = 0.2
"""Longest single wait on the event queue, so an interrupt is seen promptly."""
_RESOLVE_MS: Final = 1000
"""Longest wait for the records of one instance that were not in the announcement."""


@dataclass(frozen=True)
class Discovery:
    services: tuple[MdnsService, ...]
    dropped: int
    """Instances seen but not kept: over the cap, a bad name, no address or no port."""


def mdns_stack() -> str:
    """What `adbwire mdns check` reports: the mDNS implementation and its version."""
    return f"python-zeroconf {zeroconf.__version__}"


def mdns_disabled() -> bool:
    """ADBWIRE_MDNS=0 turns every browse and resolution off (no multicast is sent)."""
    return os.environ.get(MDNS_VARIABLE) == "0"


@contextlib.contextmanager
def _zeroconf() -> Iterator[Zeroconf]:
    if mdns_disabled():
        raise TransportError(f"mDNS is turned off ({MDNS_VARIABLE}=0 in the environment)")
    try:
        zc = Zeroconf(ip_version=IPVersion.V4Only)
    except (OSError, zeroconf.Error) as error:
        raise TransportError(f"mDNS is unavailable on this host: {error}") from error
    try:
        yield zc
    finally:
        zc.close()


class _Events:
    """Browse events from zeroconf's thread: (service type, full name, added?)."""

    def __init__(self) -> None:
        self.queue: queue.SimpleQueue[tuple[str, str, bool]] = queue.SimpleQueue()

    def __call__(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        added = state_change is not ServiceStateChange.Removed
        self.queue.put((service_type, name, added))

    def next(self, deadline: float) -> tuple[str, str, bool] | None:
        """The next event, or None at the deadline."""
        while (remaining := deadline - time.monotonic()) > 0:
            with contextlib.suppress(queue.Empty):
                return self.queue.get(timeout=min(remaining, _SLICE))
        return None


def _dns_type(service_type: str) -> str:
    return f"{service_type}.local."


def _resolve(zc: Zeroconf, service_type: str, name: str, wait_ms: float) -> MdnsService | None:
    """The instance's SRV, TXT and addresses: from the cache (a responder announces them with
    the PTR), else asked for, waiting at most `wait_ms`. None if incomplete or invalid."""
    instance = instance_from_full_name(name, service_type)
    if instance is None:
        return None
    info = ServiceInfo(_dns_type(service_type), name)
    if not info.load_from_cache(zc) and (wait_ms <= 0 or not info.request(zc, wait_ms)):
        return None
    addresses = tuple(
        (info.parsed_addresses(IPVersion.V4Only) + info.parsed_addresses(IPVersion.V6Only))[
            :MAX_ADDRESSES
        ]
    )
    port = info.port
    if not addresses or port is None or not 0 < port < 65536:
        return None
    return MdnsService(instance, service_type, addresses, port, decode_txt(info.properties))


def browse(
    service_types: Sequence[str] = SERVICE_TYPES,
    *,
    duration: float = DEFAULT_BROWSE_SECONDS,
    max_instances: int = MAX_INSTANCES,
) -> Discovery:
    """Listen `duration` seconds for instances of `service_types` (plus up to one second to
    resolve those whose records did not come with their announcement)."""
    found: dict[tuple[str, str], MdnsService] = {}
    seen: set[tuple[str, str]] = set()
    over_cap: set[tuple[str, str]] = set()
    pending: dict[tuple[str, str], str] = {}
    """Instances not resolved from their announcement: key -> name as announced."""
    dropped = 0
    events = _Events()
    dns_types = {_dns_type(t): t for t in service_types}
    with _zeroconf() as zc:
        browser = ServiceBrowser(zc, list(dns_types), handlers=[events])
        try:
            deadline = time.monotonic() + duration
            while (event := events.next(deadline)) is not None:
                dns_type, name, added = event
                key = (dns_types.get(dns_type, dns_type), name.lower())
                if not added:
                    found.pop(key, None)
                    continue
                if key not in seen:
                    if len(seen) >= max_instances:
                        over_cap.add(key)  # a set: an instance is dropped once, however chatty
                        continue
                    seen.add(key)
                service = _resolve(zc, key[0], name, 0)
                if service is not None:
                    found[key] = service
                elif key not in found:
                    pending[key] = name
            resolve_until = time.monotonic() + _RESOLVE_MS / 1000
            for key, name in pending.items():
                service_type = key[0]
                if key in found:
                    continue
                wait_ms = (resolve_until - time.monotonic()) * 1000
                service = _resolve(zc, service_type, name, wait_ms)
                if service is None:
                    dropped += 1
                else:
                    found[key] = service
        finally:
            browser.cancel()
    ordered = sorted(found.values(), key=lambda s: (s.instance.lower(), s.service_type))
    return Discovery(tuple(ordered), dropped + len(over_cap))


def find_instance(
    instance: str,
    service_types: Sequence[str],
    *,
    timeout: float,
) -> MdnsService:
    """Wait until `instance` of one of `service_types` is advertised and resolved.

    AdbTimeoutError if it does not appear within `timeout` seconds; the wait is a browse, so
    a phone that starts advertising after we began (a scanned QR code) is seen too.
    """
    wanted = {full_name(instance, t).lower(): t for t in service_types}
    events = _Events()
    deadline = time.monotonic() + timeout
    with _zeroconf() as zc:
        browser = ServiceBrowser(zc, [_dns_type(t) for t in service_types], handlers=[events])
        try:
            while (event := events.next(deadline)) is not None:
                _, name, added = event
                service_type = wanted.get(name.lower())
                if not added or service_type is None:
                    continue
                wait_ms = max(0.0, min(_RESOLVE_MS, (deadline - time.monotonic()) * 1000))
                service = _resolve(zc, service_type, name, wait_ms)
                if service is not None:
                    return service
        finally:
            browser.cancel()
    kinds = " or ".join(service_types)
    raise AdbTimeoutError(f"no device advertised {instance!r} ({kinds}) within {timeout:g} s")


def resolve_instance(instance: str, service_types: Sequence[str], *, timeout: float) -> MdnsService:
    """`find_instance` for a name the user typed: ConnectFailedError when nothing answers."""
    try:
        return find_instance(instance, service_types, timeout=timeout)
    except AdbTimeoutError:
        kinds = " or ".join(service_types)
        raise ConnectFailedError(
            f"no device on the local network advertises {instance!r} as {kinds} (looked for "
            f"{timeout:g} s by mDNS; `adbwire mdns services` lists what is advertised)"
        ) from None
