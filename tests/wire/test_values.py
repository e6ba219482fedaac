"""The wire layer's value classes (values.py): what they kept of the frozen dataclasses
they replaced (issue #20), checked on the classes the `adbwire shell` path builds."""

from __future__ import annotations

import copy
import pickle

import pytest

from adbwire.wire import packets as P
from adbwire.wire.banner import Banner, parse_banner
from adbwire.wire.protocol_events import StreamClosed, StreamOpened, StreamPhase, StreamState
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.usb.selection import DeviceCandidate
from adbwire.wire.values import FrozenValue, Value


def test_equal_by_class_and_fields_and_hashed_alike() -> None:
    assert Timeouts(1.0, 2.0, 3.0) == Timeouts(connect=1.0, auth=2.0, operation=3.0)
    assert Timeouts(1.0, 2.0, 3.0) != Timeouts(1.0, 2.0, 4.0)
    assert hash(Timeouts(1.0, 2.0, 3.0)) == hash(Timeouts(1.0, 2.0, 3.0))
    assert len({StreamOpened(1), StreamOpened(1), StreamOpened(2)}) == 2
    assert StreamOpened(1) != StreamClosed(1)  # same fields, another event
    assert StreamOpened(1) != (1,)
    assert P.Packet(P.A_OKAY, 1, 2) == P.Packet(P.A_OKAY, 1, 2, b"")


def test_defaults_and_repr_as_the_dataclasses_had_them() -> None:
    assert repr(Timeouts()) == "Timeouts(connect=10.0, auth=60.0, operation=30.0)"
    assert (
        repr(DeviceCandidate("h:1", "tcp")) == "DeviceCandidate(serial='h:1', kind='tcp', usb=None)"
    )
    assert Banner("host").properties == {} and Banner("host").features == frozenset()
    assert Banner("host").properties is not Banner("host").properties  # no shared default
    assert repr(P.Packet(P.A_OKAY, 1, 2)).startswith("Packet(OKAY, 0x1, 0x2")  # its own repr


def test_a_changed_copy_is_checked_as_a_new_value() -> None:
    timeouts = Timeouts(1.0, 2.0, 3.0)
    assert timeouts.__replace__(auth=5.0) == Timeouts(1.0, 5.0, 3.0)
    assert timeouts == Timeouts(1.0, 2.0, 3.0)
    from adbwire.errors import UsageError  # noqa: PLC0415

    with pytest.raises(UsageError, match="connect timeout"):
        timeouts.__replace__(connect=-1.0)
    with pytest.raises(TypeError):
        timeouts.__replace__(nonsense=1.0)


def test_timeouts_are_checked_as_before() -> None:
    from adbwire.errors import UsageError  # noqa: PLC0415

    with pytest.raises(UsageError, match="auth timeout"):
        Timeouts(auth=0)
    with pytest.raises(UsageError, match="operation timeout"):
        Timeouts(operation=float("nan"))


@pytest.mark.parametrize(
    "value",
    [
        Timeouts(1.0, 2.0, 3.0),
        parse_banner(b"device::ro.product.name=x;features=shell_v2"),
        P.Header(P.A_WRTE, 1, 2, 3, 4),
        DeviceCandidate("h:1", "tcp"),
    ],
    ids=lambda value: type(value).__name__,
)
def test_frozen_values_refuse_changes_and_survive_copies(value: FrozenValue) -> None:
    for name in (*value.__match_args__, "new_attribute"):
        with pytest.raises(AttributeError):
            setattr(value, name, 0)
    with pytest.raises(AttributeError):
        delattr(value, value.__match_args__[0])
    for duplicate in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
        assert duplicate == value and type(duplicate) is type(value)


def test_stream_state_changes_in_place_and_is_no_dict_key() -> None:
    state = StreamState(3, "shell:", receive_window=10)
    duplicate = copy.copy(state)
    assert duplicate == state and duplicate.receive_window == 10
    duplicate.phase = StreamPhase.OPEN
    assert duplicate != state and state.phase is StreamPhase.OPENING
    with pytest.raises(TypeError):
        hash(state)


def test_a_class_whose_slots_are_not_its_fields_is_refused() -> None:
    with pytest.raises(TypeError, match="__slots__ must be its __match_args__"):

        class Mismatched(Value):  # the fields a repr or an equality would miss
            __match_args__ = ("a",)
            __slots__ = ("a", "b")
