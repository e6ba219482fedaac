"""Targets of several runs side by side: `python -m benchmarks.compare RESULT.json ...`.

Prints one markdown table: each target and scope, the figure and verdict of every run given
(in the order given), and what was wanted.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "—"
    measured = row["measured"]
    figure = "—" if measured is None else f"{measured:.2f}"
    return f"{figure} {row['verdict']}"


def table(runs: list[dict[str, Any]], names: list[str]) -> str:
    keyed = [{(r["target"], r["scope"]): r for r in run["targets"]} for run in runs]
    order: list[tuple[str, str]] = []
    for rows in keyed:
        order += [key for key in rows if key not in order]
    header = ["target", "scope", *names, "wanted"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for key in order:
        first = next(rows[key] for rows in keyed if key in rows)
        cells = [_cell(rows.get(key)) for rows in keyed]
        lines.append(
            "| " + " | ".join([first["description"], key[1], *cells, first["wanted"]]) + " |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__)
    parser.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args()
    runs = [json.loads(path.read_text()) for path in args.results]
    names = [
        f"run {number} ({run['meta']['started'][11:16]} UTC)" for number, run in enumerate(runs, 1)
    ]
    print(table(runs, names))


if __name__ == "__main__":
    main()
