"""A list of records sent once, as text: the large part of a result goes after the JSON line
of the text block (see ``ToolOutput.text``), not in the structured content as well.

The table is a ``columns:`` line naming the fields, then one compact JSON array per record,
in that order: unambiguous (names may hold spaces), about half the size of the objects, and
easy for a model to read.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from adbwire.mcp.results.text_lines import json_line

HEADER = "columns: "


def rows_text(rows: Sequence[BaseModel], columns: Sequence[str]) -> str | None:
    """The table of ``rows`` (None when there are none)."""
    if not rows:
        return None
    lines = [HEADER + " ".join(columns)]
    for row in rows:
        values = row.model_dump(mode="json")
        if len(values.keys() & set(columns)) != len(columns):
            unknown = sorted(set(columns) - values.keys())
            raise ValueError(f"{type(row).__name__} has no field {', '.join(unknown)}")
        lines.append(json_line([values.get(c) for c in columns]))
    return "\n".join(lines)
