"""What tools/list publishes, read from a generated file: a server lists its tools without
importing them (issue #20: the tool modules, their argument models and the device layer
they use cost a stdio server a third of its start-up).

``catalogue.json`` holds, per tool, what the server publishes and what the policy decides
on: name, family module, risk, idempotent, needs_device, full_only, description and the
compact input schema. ``python -m adbwire.mcp.docgen`` writes it with docs/tools.md and a
test keeps it equal to what the specs produce. A server imports a tool's family at the
tool's first call and refuses the tool when its spec does not publish exactly its entry
(`ToolEntry.load_spec`): a file left stale by a tool change fails that tool's calls with
internal_error, it is never served under a contract it did not publish.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from mcp_types import ToolAnnotations

from adbwire.mcp.registry import ToolSpec, annotations_for
from adbwire.mcp.safety.policy import Risk

DEFAULT_PATH = Path(__file__).with_name("catalogue.json")
REGENERATE = "python -m adbwire.mcp.docgen"


class StaleCatalogueError(RuntimeError):
    """The catalogue disagrees with a tool's spec: a build defect, never a caller's fault."""


@dataclass(frozen=True)
class ToolEntry:
    """One published tool, as tools/list shows it and the policy judges it."""

    name: str
    module: str
    """The module of ``adbwire.mcp.tools`` whose TOOLS has it."""
    risk: Risk
    idempotent: bool
    needs_device: bool
    full_only: bool
    description: str
    input_schema: dict[str, Any]

    @property
    def annotations(self) -> ToolAnnotations:
        return annotations_for(self.risk, self.idempotent)

    @classmethod
    def of(cls, spec: ToolSpec, module: str) -> ToolEntry:
        """The entry a spec publishes (builds its compact input schema)."""
        from adbwire.mcp.results.schemas import model_schema  # noqa: PLC0415 - first call only

        return cls(
            name=spec.name,
            module=module,
            risk=spec.risk,
            idempotent=spec.idempotent,
            needs_device=spec.needs_device,
            full_only=spec.full_only,
            description=spec.description,
            input_schema=model_schema(spec.input_model, "validation"),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "module": self.module,
            "risk": self.risk.value,
            "idempotent": self.idempotent,
            "needs_device": self.needs_device,
            "full_only": self.full_only,
            "description": self.description,
            "input_schema": self.input_schema,
        }

    @classmethod
    def from_json(cls, item: dict[str, Any]) -> ToolEntry:
        return cls(
            name=item["name"],
            module=item["module"],
            risk=Risk(item["risk"]),
            idempotent=item["idempotent"],
            needs_device=item["needs_device"],
            full_only=item["full_only"],
            description=item["description"],
            input_schema=item["input_schema"],
        )

    def load_spec(self) -> ToolSpec:
        """The tool's spec, its family imported now if it was not yet; StaleCatalogueError
        when the spec does not publish exactly this entry (the policy, the annotations and
        the schema a client was shown would not be what runs)."""
        from adbwire.mcp.tools import family_tools  # noqa: PLC0415 - the families are heavy

        for spec in family_tools(self.module):
            if spec.name != self.name:
                continue
            fresh = ToolEntry.of(spec, self.module)
            differ = [
                f.name for f in fields(self) if getattr(fresh, f.name) != getattr(self, f.name)
            ]
            if differ:
                raise StaleCatalogueError(
                    f"tool {self.name}'s spec differs from its published entry in "
                    f"{', '.join(differ)}: run {REGENERATE}"
                )
            return spec
        raise StaleCatalogueError(f"tool {self.name} is not in family {self.module}: {REGENERATE}")


def published(path: Path = DEFAULT_PATH) -> list[ToolEntry]:
    """Every tool adbwire has, in catalogue order, from the generated file."""
    document = json.loads(path.read_text(encoding="utf-8"))
    return [ToolEntry.from_json(item) for item in document["tools"]]


def entries(specs: Iterable[tuple[str, ToolSpec]] | None = None) -> list[ToolEntry]:
    """The entries the specs publish (default: every family's, imported now)."""
    if specs is None:
        from adbwire.mcp.tools import families  # noqa: PLC0415

        specs = ((module, spec) for module, tools in families() for spec in tools)
    return [ToolEntry.of(spec, module) for module, spec in specs]


def render(specs: Iterable[tuple[str, ToolSpec]] | None = None) -> str:
    """catalogue.json's text: one tool per line, so a change shows as that tool's line."""
    lines = [
        json.dumps(entry.as_json(), ensure_ascii=False, separators=(",", ":"))
        for entry in entries(specs)
    ]
    header = json.dumps(f"generated by `{REGENERATE}` from the tool registry; do not edit")
    return '{"about":' + header + ',"tools":[\n' + ",\n".join(lines) + "\n]}\n"
