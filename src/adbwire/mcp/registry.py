"""Tool specifications: one `ToolSpec` per tool, declared next to its handler.

A spec carries everything the server, the policy, the docs generator and the meta-tests need:
name, risk, typed input and output models, a worked example, and the handler. The MCP
annotations are derived from the risk, never written by hand, so they cannot disagree with
it. Tool families (``adbwire.mcp.tools.*``) each export ``TOOLS``; ``all_specs()`` gathers
them, so a new family (the UI tools) only has to be added to ``tools/__init__.py``. A server
publishes the generated catalogue (``adbwire.mcp.catalogue``) and imports a spec at its first
call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp_types import ContentBlock, ToolAnnotations
from pydantic import BaseModel

from adbwire.mcp.safety.policy import Risk

if TYPE_CHECKING:
    from adbwire.mcp.runtime import ToolCall


@dataclass(frozen=True)
class ToolOutput:
    """What a handler returns: a one-line summary and the typed result, plus any content
    blocks to send after the text (a screenshot's ImageContent). ``text`` is a large
    payload sent once, as plain text at the end of the text block, and left out of the
    structured content (a UI tree must not travel twice)."""

    summary: str
    data: BaseModel
    extra: tuple[ContentBlock, ...] = ()
    text: str | None = None


Handler = Callable[["ToolCall", Any], Awaitable[ToolOutput]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    risk: Risk
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    example: dict[str, Any]
    handler: Handler
    family: str
    idempotent: bool = True
    host_files: bool = False
    """Reads or writes host files: refuses without --local-root."""
    long_running: bool = False
    """Reports progress notifications."""
    needs_device: bool = True
    """Targets one device (input has `serial`); resolved and checked before the handler runs."""
    describe: Callable[[Any], str] | None = None
    """Destructive tools: the operation in words, shown in the confirmation question."""
    precheck: Callable[[Any], str | None] | None = None
    """Pure refusals checked before asking (catastrophic commands, control properties); it
    may answer why this call must be asked every time, even under --allow-destructive."""
    secret_args: tuple[str, ...] = ()
    """Arguments the audit log must not keep (typed text may be a password)."""
    full_only: bool = False
    """Published by the full profile only (or by name): keeps the default catalogue small."""
    aliases: tuple[str, ...] = ()
    """Tool names this one stands for (folded to save catalogue bytes); listed in the docs."""

    @property
    def annotations(self) -> ToolAnnotations:
        return annotations_for(self.risk, self.idempotent)


def annotations_for(risk: Risk, idempotent: bool) -> ToolAnnotations:
    """The MCP annotations a tool of this risk publishes."""
    # readOnlyHint defaults to false, and the other hints only mean something then.
    if risk is Risk.READ:
        return ToolAnnotations(read_only_hint=True)
    return ToolAnnotations(destructive_hint=risk is Risk.DESTRUCTIVE, idempotent_hint=idempotent)


def tool(
    *,
    name: str,
    title: str,
    risk: Risk,
    input: type[BaseModel],
    output: type[BaseModel],
    example: dict[str, Any],
    idempotent: bool = True,
    host_files: bool = False,
    long_running: bool = False,
    needs_device: bool = True,
    describe: Callable[[Any], str] | None = None,
    precheck: Callable[[Any], str | None] | None = None,
    secret_args: tuple[str, ...] = (),
    full_only: bool = False,
    aliases: tuple[str, ...] = (),
) -> Callable[[Handler], ToolSpec]:
    """Declare a tool; its description is the handler's docstring (keep it short)."""

    def declare(handler: Handler) -> ToolSpec:
        description = " ".join((handler.__doc__ or "").split())  # one line, however wrapped
        if not description:
            raise ValueError(f"tool {name} needs a docstring: it is the tool's description")
        if risk is Risk.DESTRUCTIVE and describe is None:
            raise ValueError(f"destructive tool {name} needs `describe` for its confirmation")
        return ToolSpec(
            name=name,
            title=title,
            description=description,
            risk=risk,
            input_model=input,
            output_model=output,
            example=example,
            handler=handler,
            family=handler.__module__.rsplit(".", 1)[-1],
            idempotent=idempotent,
            host_files=host_files,
            long_running=long_running,
            needs_device=needs_device,
            describe=describe,
            precheck=precheck,
            secret_args=secret_args,
            full_only=full_only,
            aliases=aliases,
        )

    return declare


def all_specs() -> list[ToolSpec]:
    """Every tool adbwire has, in catalogue order; names are unique."""
    from adbwire.mcp.tools import families  # noqa: PLC0415 - the families import this module

    specs = [spec for _, tools in families() for spec in tools]
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise ValueError(f"two tools are named {spec.name}")
        seen.add(spec.name)
    return specs
