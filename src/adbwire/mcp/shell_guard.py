"""Commands refused before the user is even asked: a guard rail, not a sandbox.

A tired person approving a confirmation should never be one click away from wiping a
device. These few shapes are refused outright: recursive deletion of the root or of a whole
top-level area, formatting, raw writes to block devices, factory reset. Everything else
run_shell runs only after the user confirms.
"""

from __future__ import annotations

import posixpath
import re
import shlex

from adbwire.device.errors import RefusedError

CRITICAL_PATHS = frozenset(
    {
        "/",
        "/data",
        "/data/data",
        "/data/media",
        "/data/user",
        "/system",
        "/vendor",
        "/product",
        "/sdcard",
        "/storage",
        "/storage/emulated",
        "/storage/emulated/0",
        "/storage/self/primary",
        "/mnt",
        "/cache",
    }
)
_SEPARATORS = re.compile(r"(?:;|&&|\|\||\||&|\n|`|\$\()")
_PATTERNS = (
    (re.compile(r"\b(?:FACTORY_RESET|MASTER_CLEAR)\b"), "factory reset"),
    (re.compile(r"--wipe_data\b|\bwipe\s+data\b"), "factory reset"),
    (re.compile(r"\bof=/dev/block/"), "raw write to a block device"),
    (re.compile(r">\s*/dev/block/"), "raw write to a block device"),
)
_FORMATTERS = ("mkfs", "make_ext4fs", "mke2fs", "newfs_msdos", "mkfs.f2fs", "blkdiscard", "sgdisk")


def check_command(command: str) -> None:
    """Raise RefusedError for a catastrophic command line."""
    for pattern, what in _PATTERNS:
        if pattern.search(command):
            raise _refuse(what)
    for part in _SEPARATORS.split(command):
        try:
            words = shlex.split(part, posix=True)
        except ValueError:
            words = part.split()
        _check_words(words)


_WRAPPERS = frozenset(
    {"sudo", "su", "busybox", "toybox", "exec", "nohup", "time", "env", "eval", "xargs", "command"}
)
_SHELLS = frozenset({"sh", "mksh", "bash", "su"})


def _check_words(words: list[str]) -> None:
    if words and words[0].rsplit("/", 1)[-1] in _SHELLS and "-c" in words:
        check_command(" ".join(words[words.index("-c") + 1 :]))  # sh -c '...', su -c '...'
    while words and ("=" in words[0] or words[0].rsplit("/", 1)[-1] in _WRAPPERS):
        words = words[1:]  # skip VAR=value prefixes and wrappers (and su's user)
        if words and (words[0].isdigit() or words[0] in ("root", "shell")):
            words = words[1:]
    if not words:
        return
    program = words[0].rsplit("/", 1)[-1]
    if program.startswith(_FORMATTERS):
        raise _refuse(f"formatting ({program})")
    if program == "rm":
        flags = "".join(w[1:] for w in words[1:] if w.startswith("-") and not w.startswith("--"))
        recursive = "r" in flags.lower() or "--recursive" in words
        operands = [w for w in words[1:] if not w.startswith("-")]
        if recursive:
            if any("$" in w for w in operands):
                raise _refuse("recursive deletion of a path held in a variable")
            # A relative path is read from /, where `adb shell` starts (cd / && rm -rf data).
            critical = sorted({_normal(w) for w in operands} & CRITICAL_PATHS)
            if critical:
                raise _refuse("recursive deletion of " + ", ".join(critical))
    if program == "find" and "-delete" in words:
        roots = [w for w in words[1:] if not w.startswith(("-", "(", "!"))][:1]
        if not roots or "$" in roots[0] or _normal(roots[0]) in CRITICAL_PATHS:
            raise _refuse("find -delete over a whole area")
    if program == "dd" and any(w.startswith("of=/dev/") for w in words[1:]):
        raise _refuse("raw write to a device node")


def _normal(path: str) -> str:
    """/sdcard/., //data, /sdcard/*, /a/../sdcard/ all name the directory they cover."""
    path = path.rstrip(")")
    while path.endswith(("/*", "/.")):
        path = path[:-2]
    return posixpath.normpath("/" + path.lstrip("/")) if path else "/"


def _refuse(what: str) -> RefusedError:
    return RefusedError(
        f"refused before asking: {what} is on the list of catastrophic commands "
        "run_shell never runs"
    )
