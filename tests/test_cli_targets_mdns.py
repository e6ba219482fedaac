"""`-s NAME._adb-tls-connect._tcp`: the CLI resolves mDNS service names (and only loads the
mDNS modules for a serial that can be one, tests/test_cli_startup.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from adbwire.cli import targets
from adbwire.errors import UsageError
from adbwire.wire.mdns import browser
from adbwire.wire.mdns.names import CONNECT_SERVICE, LEGACY_SERVICE, MdnsService
from adbwire.wire.timeouts import Timeouts


@pytest.fixture(autouse=True)
def resolver(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[str, ...]]]:
    asked: list[tuple[str, tuple[str, ...]]] = []

    def resolve(instance: str, service_types: Sequence[str], *, timeout: float) -> MdnsService:
        asked.append((instance, tuple(service_types)))
        return MdnsService(instance, service_types[0], ("192.0.2.7",), 37001)

    monkeypatch.setattr(browser, "resolve_instance", resolve)
    return asked


@pytest.mark.parametrize(
    ("serial", "service_type"),
    [
        ("adb-R5C-x1._adb-tls-connect._tcp", CONNECT_SERVICE),
        ("adb-R5C-x1._adb-tls-connect._tcp.local.", CONNECT_SERVICE),
        ("adb-R5C-x1._adb._tcp", LEGACY_SERVICE),
    ],
)
def test_a_service_name_is_resolved_by_mdns(
    serial: str, service_type: str, resolver: list[tuple[str, tuple[str, ...]]]
) -> None:
    candidate = targets.choose(serial, Timeouts(connect=1))
    assert (candidate.serial, candidate.kind) == ("192.0.2.7:37001", "tcp")
    assert resolver == [("adb-R5C-x1", (service_type,))]


def test_a_pairing_service_name_says_to_pair(resolver: list[tuple[str, tuple[str, ...]]]) -> None:
    with pytest.raises(UsageError, match="is a pairing service: adbwire pair adb-R5C-x1"):
        targets.choose("adb-R5C-x1._adb-tls-pairing._tcp", Timeouts(connect=1))
    assert resolver == []


def test_a_tcp_address_is_no_mdns_name(resolver: list[tuple[str, tuple[str, ...]]]) -> None:
    candidate = targets.choose("127.0.0.1:5555", Timeouts(connect=1))
    assert (candidate.serial, candidate.kind) == ("127.0.0.1:5555", "tcp")
    assert resolver == []
