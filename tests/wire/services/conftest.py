"""Fixtures: a fake adbd with an Android behind it, and host connections to it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from adbwire.wire.connection import Connection
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport
from tests.wire.services.fake_adbd import fake_adbd
from tests.wire.services.fake_android import ANDROID_11, FakeAndroid

TEST_TIMEOUTS = Timeouts(connect=5.0, auth=5.0, operation=15.0)

Connect = Callable[[], Connection]


@pytest.fixture
def features() -> frozenset[str]:
    """Override in a module (or parametrize) to pretend to be another Android release."""
    return ANDROID_11


@pytest.fixture
def android(features: frozenset[str]) -> Iterator[FakeAndroid]:
    with fake_adbd(features) as device:
        yield FakeAndroid(device)


@pytest.fixture
def connect(android: FakeAndroid) -> Iterator[Connect]:
    """Open host connections to the fake device; all are closed after the test."""
    made: list[Connection] = []

    def open_one() -> Connection:
        transport = TcpTransport("127.0.0.1", android.device.port, io_timeout=5.0)
        connection = Connection.open(transport, [], timeouts=TEST_TIMEOUTS)
        made.append(connection)
        return connection

    yield open_one
    for connection in made:
        connection.close()


@pytest.fixture
def connection(connect: Connect) -> Connection:
    return connect()
