"""Blocking `AdbClient` methods as awaitable ones, with the signatures they already have.

`AsyncAdbClient` declares `push = offloaded(AdbClient.push)`: the awaitable takes exactly
the blocking method's arguments (a type checker sees them), and runs the call in the
device's lane. Nothing is written twice, so the facade cannot drift from the client.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

if TYPE_CHECKING:
    from adbwire.wire.aio import AsyncAdbClient
    from adbwire.wire.client import AdbClient

P = ParamSpec("P")
T = TypeVar("T")


class offloaded(Generic[P, T]):
    """An `AdbClient` method, awaitable on an `AsyncAdbClient` (run in its lane)."""

    def __init__(self, method: Callable[Concatenate[AdbClient, P], T]) -> None:
        self.method = method
        self.__doc__ = method.__doc__
        signature = inspect.signature(method)
        self.signature = signature.replace(parameters=list(signature.parameters.values())[1:])

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> offloaded[P, T]: ...

    @overload
    def __get__(
        self, instance: AsyncAdbClient, owner: type[Any]
    ) -> Callable[P, Coroutine[Any, Any, T]]: ...

    def __get__(
        self, instance: AsyncAdbClient | None, owner: type[Any]
    ) -> offloaded[P, T] | Callable[P, Coroutine[Any, Any, T]]:
        if instance is None:
            return self
        method, client, lane = self.method, instance.client, instance.lane

        async def call(*args: P.args, **kwargs: P.kwargs) -> T:
            return await lane.run(method, client, *args, **kwargs)

        call.__name__ = self.name
        call.__doc__ = self.__doc__
        call.__signature__ = self.signature  # type: ignore[attr-defined]  # for help()
        return call
