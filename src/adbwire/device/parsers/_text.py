"""Text helpers shared by the parsers: newline normalisation and device error detection."""

from __future__ import annotations

import re

from adbwire.errors import DeviceCommandError

# Old devices (a pty on the device side) turn "\n" into "\r\n", some even into "\r\r\n":
# "\r*\n" is one newline, and any other "\r" is one too. Split with str methods: the regular
# expression r"\r*\n|\r" backtracks quadratically over a run of "\r" (200 KB: minutes).

# Lines with which Android tools say "I could not do that" instead of printing a result.
_ERROR_LINE = re.compile(
    r"^(?:Unknown command\b.*"
    r"|Bad activity command\b.*"
    r"|Can't find service: .*"
    r"|cmd: Can't find service: .*"
    r"|Error: .*"
    r"|ERROR: .*"
    r"|Exception occurred while executing.*"
    r"|.*: (?:not found|inaccessible or not found|Permission denied)"
    r"|Permission Denial: .*)$"
)


def lines_of(text: str) -> list[str]:
    """Split device output into lines, whatever newline convention the device used."""
    if "\r" not in text:
        return text.split("\n")
    pieces = text.split("\n")
    lines: list[str] = []
    for piece in pieces[:-1]:
        lines += piece.rstrip("\r").split("\r")  # the \r just before a \n are part of it
    lines += pieces[-1].split("\r")
    return lines


def normalize_newlines(text: str) -> str:
    """Return ``text`` with every newline convention turned into ``\\n``."""
    return "\n".join(lines_of(text))


def indent_of(line: str) -> int:
    """Number of leading spaces (tabs count as one) of a line."""
    return len(line) - len(line.lstrip())


def find_error_line(text: str, *, max_lines: int = 3) -> str | None:
    """The first error line among the first ``max_lines`` non-blank lines, if any.

    Only the start of the output is looked at: a healthy dump can mention "Error:" deep inside.
    """
    seen = 0
    for line in lines_of(text):
        stripped = line.strip()
        if not stripped:
            continue
        if _ERROR_LINE.match(stripped):
            return stripped
        seen += 1
        if seen >= max_lines:
            break
    return None


def output_error(command: str, problem: str, output: str = "") -> DeviceCommandError:
    """The error raised when a command's output says it failed, or cannot be understood.

    The device's own words (first lines, shortened) are kept in the message so that a human or
    an agent can see what really came back.
    """
    excerpt = " | ".join(line.strip() for line in lines_of(output.strip())[:3] if line.strip())
    if len(excerpt) > 200:
        excerpt = excerpt[:197] + "..."
    detail = f" (device said: {excerpt})" if excerpt else ""
    return DeviceCommandError(f"{command}: {problem}{detail}")


def raise_if_error_output(command: str, text: str) -> None:
    """Raise :class:`DeviceCommandError` when ``text`` starts with a known error line."""
    error = find_error_line(text)
    if error is not None:
        raise output_error(command, "the command failed", text)
