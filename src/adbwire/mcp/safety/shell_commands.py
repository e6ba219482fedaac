"""What the run_shell guard knows about single commands: which rule reads which command.

A rule (`shell_rules.py`: changing directory and destroying; `shell_wrappers.py`: commands
that run other commands) gets the words after the command name and the directories the
shell may be in, tells the guard what it found (`Guard.refuse`, `Guard.ask`,
`Guard.removal`, `Guard.write`) and answers where the shell may be afterwards. A command
the guard does not know is searched for a known one among its words (`logwrapper rm -rf /`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adbwire.mcp.safety.shell_paths import Cwds
from adbwire.mcp.safety.shell_rules import (
    Outcome,
    Rule,
    cd,
    dd,
    find,
    leave,
    mv,
    rm,
    storage_manager,
    writes_operands,
)
from adbwire.mcp.safety.shell_words import literal, show
from adbwire.mcp.safety.shell_wrappers import (
    SHELLS,
    WRAPPERS,
    alias,
    evaluate,
    script_file,
    shell,
    su,
    trap,
    wrapper,
)
from adbwire.shell_syntax import Word

if TYPE_CHECKING:
    from adbwire.mcp.safety.shell_guard import Guard

FACTORY_RESET_MARKERS = ("FACTORY_RESET", "MASTER_CLEAR", "--wipe_data")
"""Words that only appear in a factory reset (an intent, a recovery command)."""
FORMATTERS = frozenset(
    {
        "mkfs",
        "mke2fs",
        "make_ext4fs",
        "make_f2fs",
        "newfs_msdos",
        "mkdosfs",
        "mkexfatfs",
        "mkntfs",
        "blkdiscard",
        "sgdisk",
        "sfdisk",
        "fdisk",
        "parted",
        "wipe",
        "flash_image",
        "erase_image",
    }
)
_FORMATTER_PREFIXES = ("mkfs.", "mke2fs.")
INERT = frozenset(
    [
        "echo",
        "printf",
        "ls",
        "cat",
        "grep",
        "egrep",
        "fgrep",
        "head",
        "tail",
        "wc",
        "sort",
        "uniq",
        "cut",
        "tr",
        "sed",
        "awk",
        "test",
        "[",
        "true",
        "false",
        "getprop",
        "setprop",
        "dumpsys",
        "logcat",
        "pm",
        "am",
        "cmd",
        "settings",
        "input",
        "wm",
        "stat",
        "file",
        "which",
        "type",
        "whence",
        "pwd",
        "id",
        "whoami",
        "date",
        "uname",
        "df",
        "du",
        "ps",
        "top",
        "sleep",
        "kill",
        "pidof",
        "touch",
        "mkdir",
        "rmdir",
        "chmod",
        "chown",
        "basename",
        "dirname",
        "readlink",
        "realpath",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "base64",
        "xxd",
        "od",
        "hexdump",
        "strings",
        "diff",
        "cmp",
        "expr",
        "screencap",
        "screenrecord",
        "uiautomator",
        "content",
        "appops",
        "svc",
        "ping",
        "ip",
        "ifconfig",
        "netstat",
        "monkey",
        "export",
        "unset",
        "read",
        "set",
        "local",
        "typeset",
        "readonly",
        "print",
        "ulimit",
        "getopts",
        "shift",
        "break",
        "continue",
        "umask",
        "unalias",
    ]
)


def run_words(guard: Guard, words: list[Word], cwds: Cwds, depth: int) -> Outcome:
    """Check one command (name and arguments); where the shell may be after it."""
    if not words:
        return cwds, cwds
    name = literal(words[0])
    if name is None:
        guard.ask(f"the command name {show(words[0])} is only known when the line runs")
        _scan(guard, words[1:], cwds, depth)
        return None, None
    program = name.rsplit("/", 1)[-1]
    args = words[1:]
    rule = RULES.get(program)
    if rule is not None:
        return rule(guard, program, args, cwds, depth)
    if program in FORMATTERS or program.startswith(_FORMATTER_PREFIXES):
        guard.refuse(f"formatting or partitioning storage ({program})")
    elif program not in INERT:
        _scan(guard, args, cwds, depth)
    return cwds, cwds


def _known(program: str) -> bool:
    return program in RULES or program in FORMATTERS or program.startswith(_FORMATTER_PREFIXES)


def _scan(guard: Guard, args: list[Word], cwds: Cwds, depth: int) -> None:
    """An unknown program may run its arguments (`logwrapper rm -rf /`): check from the
    first word that names a command the guard knows."""
    for index, word in enumerate(args):
        name = literal(word)
        if name is not None and _known(name.rsplit("/", 1)[-1]):
            run_words(guard, args[index:], cwds, depth + 1)
            return


RULES: dict[str, Rule] = {
    "cd": cd,
    "chdir": cd,
    "exit": leave,
    "return": leave,
    "rm": rm,
    "mv": mv,
    "cp": mv,
    "install": mv,
    "tee": writes_operands,
    "truncate": writes_operands,
    "shred": writes_operands,
    "dd": dd,
    "find": find,
    "sm": storage_manager,
    "vdc": storage_manager,
    "su": su,
    "eval": evaluate,
    "trap": trap,
    ".": script_file,
    "source": script_file,
    "alias": alias,
    **dict.fromkeys(SHELLS, shell),
    **dict.fromkeys(WRAPPERS, wrapper),
}
