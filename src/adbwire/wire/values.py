"""Value classes for the wire layer without `dataclasses` (issue #20): importing dataclasses
pulls in inspect, ast and dis, and each decorated class costs about a millisecond to build,
on every `adbwire -s S shell` start. What a frozen dataclass gives, kept here:

A subclass names its fields in `__match_args__`, in the order of its `__init__`'s
parameters, makes them its `__slots__`, and sets them in that `__init__` with
`object.__setattr__` (`FrozenValue`) or plainly (`Value`). Equality (same class and
fields), repr, copying and pickling come from here, over those fields; a `FrozenValue`
also hashes, refuses assignment and makes changed copies (`copy.replace` on Python 3.13+,
in place of `dataclasses.replace`), and mypy checks it as a frozen dataclass
(dataclass_transform: writes are type errors).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported for this (mypy knows the idiom)
if TYPE_CHECKING:
    from typing_extensions import Self, dataclass_transform
else:

    def dataclass_transform(**_options: object) -> object:
        return lambda cls: cls


class Value:  # noqa: PLW1641 - no __hash__: mutable, as a dataclass with eq
    """A slotted record: equality over its fields, a dataclass-like repr."""

    __slots__ = ()
    __match_args__: tuple[str, ...] = ()

    def __init_subclass__(cls) -> None:
        if tuple(cls.__slots__) != cls.__match_args__:
            raise TypeError(f"{cls.__qualname__}: its __slots__ must be its __match_args__")

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Value)
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__qualname__}({shown})"

    def __reduce__(self) -> tuple[object, tuple[type[Self], tuple[object, ...]]]:
        return _rebuilt, (type(self), self._fields())


@dataclass_transform(frozen_default=True)
class FrozenValue(Value):
    """An immutable `Value`, hashable over its fields (when they are)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __replace__(self, **changes: object) -> Self:
        """A copy with `changes` (`copy.replace` on Python 3.13+), checked by __init__ again
        as `dataclasses.replace` did."""
        fields = {name: getattr(self, name) for name in self.__match_args__}
        return type(self)(**{**fields, **changes})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")


def _rebuilt(cls: type[Value], fields: tuple[object, ...]) -> Value:
    """A copy or an unpickled value: its fields set as they were (no __init__ runs again)."""
    value = object.__new__(cls)
    for name, field in zip(cls.__match_args__, fields, strict=True):
        object.__setattr__(value, name, field)
    return value
