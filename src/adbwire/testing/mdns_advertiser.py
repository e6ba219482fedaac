"""The simulated phone's mDNS advertisement, as adbd and Android's framework publish it.

With Wireless debugging on, a phone advertises `_adb-tls-connect._tcp` (its TLS port, instance
name `adb-<serial>-<suffix>`, TXT `v`, `name`, `api` as daemon/mdns.cpp builds it) and, while
"Pair device with pairing code" is open, `_adb-tls-pairing._tcp` (its pairing port). After a
scanned QR code, the pairing service is published under the name the QR code asked for. The
pairing service is withdrawn when the pairing port closes (a host paired, or too many tries).

The records go out on the interface of the device's listening address (every interface when
it listens on all of them), IPv4 only. Registration probes the name first, as mDNS requires
(about 1.7 s with python-zeroconf).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
from typing import TYPE_CHECKING

import zeroconf
from zeroconf import InterfaceChoice, IPVersion, ServiceInfo, Zeroconf
from zeroconf._utils.net import get_all_addresses

from adbwire.errors import TransportError
from adbwire.wire.mdns.names import CONNECT_SERVICE, PAIRING_SERVICE, full_name

if TYPE_CHECKING:
    from adbwire.testing.pairing_server import PairingServer
    from adbwire.testing.server import SimulatedDevice

__all__ = ["ADB_SECURE_SERVICE_VERSION", "MdnsAdvertiser", "advertise_wireless_device"]

log = logging.getLogger(__name__)

ADB_SECURE_SERVICE_VERSION = "1"


class MdnsAdvertiser:
    """Publishes service instances for one simulated device until `close()`."""

    def __init__(self, host: str, server_name: str) -> None:
        """`host`: the address the device listens on; `server_name`: its mDNS host name."""
        self.addresses = _advertised_addresses(host)
        interfaces: InterfaceChoice | list[str] = (
            InterfaceChoice.All if _is_wildcard(host) else list(self.addresses)
        )
        try:
            self._zc = Zeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        except (OSError, zeroconf.Error) as error:
            raise TransportError(f"mDNS is unavailable for {host}: {error}") from error
        self.server = f"{server_name}.local."
        self._lock = threading.Lock()
        self._published: dict[str, ServiceInfo] = {}
        self._closed = threading.Event()

    def advertise(
        self, instance: str, service_type: str, port: int, txt: dict[str, str] | None = None
    ) -> None:
        """Probe and announce `instance` of `service_type` (blocks ~1.7 s)."""
        info = ServiceInfo(
            f"{service_type}.local.",
            full_name(instance, service_type),
            addresses=[socket.inet_aton(a) for a in self.addresses],
            port=port,
            properties=dict(txt or {}),
            server=self.server,
        )
        try:
            self._zc.register_service(info)
        except (OSError, zeroconf.Error) as error:
            raise TransportError(f"cannot advertise {info.name}: {error}") from error
        with self._lock:
            self._published[info.name] = info
        log.info("advertising %s at %s:%d", info.name, self.addresses[0], port)

    def withdraw(self, instance: str, service_type: str) -> None:
        """Send the goodbye (TTL 0) for `instance`, as a phone does when the service stops."""
        with self._lock:
            info = self._published.pop(full_name(instance, service_type), None)
        if info is not None and not self._closed.is_set():
            self._zc.unregister_service(info)

    def withdraw_when_closed(self, server: PairingServer, instance: str) -> None:
        """Withdraw the pairing service once `server`'s port closes (or at `close()`)."""

        def watch() -> None:
            while not self._closed.is_set():
                if server.closed.wait(0.5):
                    self.withdraw(instance, PAIRING_SERVICE)
                    return

        threading.Thread(target=watch, name="adbd-sim mdns pairing watch", daemon=True).start()

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self._zc.unregister_all_services()
        self._zc.close()

    def __enter__(self) -> MdnsAdvertiser:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def advertise_wireless_device(
    device: SimulatedDevice,
    pairing: PairingServer | None,
    *,
    pairing_name: str | None = None,
) -> MdnsAdvertiser:
    """Publish what a phone with Wireless debugging on publishes: the TLS port under the
    device's GUID and, when `pairing` is open, its port under `pairing_name` (a scanned QR
    code's name) or the GUID. The caller closes the advertiser."""
    properties = device.userland.properties
    guid = pairing.guid if pairing is not None else f"adb-{properties.get('ro.serialno', 'SIM')}"
    advertiser = MdnsAdvertiser(device.options.host, guid)
    try:
        txt = {
            "v": ADB_SECURE_SERVICE_VERSION,
            "name": properties.get("ro.product.model", ""),
            "api": properties.get("ro.build.version.sdk_full")
            or properties.get("ro.build.version.sdk", ""),
        }
        advertiser.advertise(guid, CONNECT_SERVICE, device.port, txt)
        if pairing is not None and not pairing.closed.is_set():
            name = pairing_name or guid
            advertiser.advertise(name, PAIRING_SERVICE, pairing.port)
            advertiser.withdraw_when_closed(pairing, name)
    except BaseException:
        advertiser.close()
        raise
    return advertiser


def _is_wildcard(host: str) -> bool:
    try:
        return not host or ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def _advertised_addresses(host: str) -> tuple[str, ...]:
    if _is_wildcard(host):
        addresses = tuple(a for a in get_all_addresses() if not a.startswith("127."))
        return addresses or ("127.0.0.1",)
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = ipaddress.ip_address(socket.gethostbyname(host))
    if address.version != 4:
        raise TransportError(f"the simulated device advertises IPv4 only, not {host}")
    return (str(address),)
