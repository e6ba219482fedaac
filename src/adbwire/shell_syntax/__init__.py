"""The POSIX shell command language as Android's /system/bin/sh (mksh) reads it: syntax only.

Tokens and a syntax tree, no expansion and no execution. Two consumers: the simulated
device's interpreter (`adbwire.testing.userland.shell`) runs the tree, and the MCP server's
`run_shell` guard (`adbwire.mcp.safety.shell_guard`) reads it to decide what a command line may do.
A leaf package: it imports nothing else of adbwire.
"""

from adbwire.shell_syntax.lexer import (
    Arith,
    CmdSub,
    HereDoc,
    Lit,
    Op,
    Param,
    Part,
    ShellSyntaxError,
    Token,
    Word,
    expression,
    tokenize,
)
from adbwire.shell_syntax.parser import (
    AndOr,
    Assign,
    Case,
    Command,
    Conditional,
    For,
    FunctionDef,
    Group,
    If,
    Loop,
    Pipeline,
    Redirect,
    Script,
    Simple,
    parse,
    parse_lines,
)

__all__ = [
    "AndOr",
    "Arith",
    "Assign",
    "Case",
    "CmdSub",
    "Command",
    "Conditional",
    "For",
    "FunctionDef",
    "Group",
    "HereDoc",
    "If",
    "Lit",
    "Loop",
    "Op",
    "Param",
    "Part",
    "Pipeline",
    "Redirect",
    "Script",
    "ShellSyntaxError",
    "Simple",
    "Token",
    "Word",
    "expression",
    "parse",
    "parse_lines",
    "tokenize",
]
