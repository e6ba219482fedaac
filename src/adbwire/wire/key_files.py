"""Where the user's ADB keys live, and how key files are read and written, as adb does
(the rules are in keys.py's docstring): `~/.android/adbkey`, the SDK-home keys,
`$ADB_VENDOR_KEYS`, adb's `user@host` comment, reads with a size cap, and writes that give
a key its name only once it is complete with its final mode.

What a key is and does (loading, signing, generating) is keys.py's; this module knows files.
"""

from __future__ import annotations

import contextlib
import os
import socket
from typing import TYPE_CHECKING, Final

from adbwire.errors import KeyFileError
from adbwire.wire.lazy_logging import get_logger

if TYPE_CHECKING:
    # pathlib (with urllib.parse and ipaddress) loads only off the common path: the user key
    # is found and read through os.path; a Path is made when one is asked for (#20).
    from pathlib import Path

log = get_logger("adbwire.wire.keys")  # the name its messages always had

VENDOR_KEY_SUFFIX: Final = ".adb_key"
MAX_KEY_FILE_SIZE: Final = 64 * 1024
PRIVATE_MODE: Final = 0o600
PUBLIC_MODE: Final = 0o644
ANDROID_DIR_MODE: Final = 0o750
ALREADY_EXISTS: Final = "already exists; refusing to overwrite a key (use force)"


def as_path(file: str | os.PathLike[str]) -> Path:
    from pathlib import Path  # noqa: PLC0415 - see the imports

    return Path(file)


def android_dir() -> Path:
    """The directory adb keeps its keys in: `~/.android` (`$HOME` first, as adb does)."""
    return as_path(_android_dir_name())


def _android_dir_name() -> str:
    return os.path.join(os.path.expanduser("~"), ".android")  # what Path.home() is


def default_key_path() -> Path:
    """The user's private key, `~/.android/adbkey`; its public key is `adbkey.pub` beside it."""
    return as_path(default_key_file())


def default_key_file() -> str:
    return os.path.join(_android_dir_name(), "adbkey")


def default_key_comment() -> str:
    """`user@host` as adb writes it: `$LOGNAME`/`$HOSTNAME` (Windows: `USERNAME`/`COMPUTERNAME`)
    when set, else the login name and host name of the system."""
    windows = os.name == "nt"
    user_var, host_var = ("USERNAME", "COMPUTERNAME") if windows else ("LOGNAME", "HOSTNAME")
    user = os.environ.get(user_var) or _login_name()
    host = os.environ.get(host_var) or socket.gethostname()
    return f"{user}@{host}"


def _login_name() -> str:
    with contextlib.suppress(OSError):
        return os.getlogin()
    import getpass  # noqa: PLC0415 - only a key's comment needs it, seldom (#20)

    with contextlib.suppress(Exception):
        return getpass.getuser()
    return ""


def vendor_key_paths() -> list[Path]:
    """The key files named by `$ADB_VENDOR_KEYS`, in adb's order; missing entries skipped."""
    entries = sorted({e for e in os.environ.get("ADB_VENDOR_KEYS", "").split(os.pathsep) if e})
    paths: list[Path] = []
    for entry in entries:
        path = as_path(entry)
        if not path.exists():
            log.warning("ADB_VENDOR_KEYS names %s, which does not exist; skipped", path)
            continue
        paths.extend(expand_key_path(path))
    return paths


def expand_key_path(path: Path) -> list[Path]:
    """A file is itself; a directory means its `*.adb_key` files (not recursively)."""
    if not path.is_dir():
        return [path]
    try:
        names = sorted(os.listdir(path))
    except OSError as error:
        raise KeyFileError(path, f"cannot list this key directory: {reason(error)}") from None
    keys = [path / name for name in names if name.endswith(VENDOR_KEY_SUFFIX)]
    return [key for key in keys if not key.is_dir()]


def android_sdk_key_files() -> list[str]:
    candidates: list[str] = []
    if user_home := os.environ.get("ANDROID_USER_HOME"):
        candidates.append(os.path.join(user_home, "adbkey"))
    if sdk_home := os.environ.get("ANDROID_SDK_HOME"):
        candidates.append(os.path.join(sdk_home, ".android", "adbkey"))
    return [file for file in candidates if os.path.exists(file)]


def read_key_file(path: str) -> bytes:
    """The file's bytes (at most the cap); KeyFileError names it as a Path."""
    if os.path.isdir(path):
        raise KeyFileError(as_path(path), "is a directory, expected a PEM private key file")
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_KEY_FILE_SIZE + 1)
    except FileNotFoundError:
        raise KeyFileError(as_path(path), "does not exist") from None
    except OSError as error:
        raise KeyFileError(as_path(path), f"cannot be read: {reason(error)}") from None
    if len(data) > MAX_KEY_FILE_SIZE:
        raise KeyFileError(as_path(path), "is far too large to be a key file")
    if not data.strip():
        raise KeyFileError(as_path(path), "is empty, expected a PEM private key")
    return data


def write_atomically(path: Path, data: bytes, mode: int, *, replace: bool) -> None:
    """Write a temp file (created 0600 by mkstemp) beside `path`, then move it into place."""
    import tempfile  # noqa: PLC0415 - only generating a key writes one (#20)

    try:
        fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise KeyFileError(path, f"cannot be written: {reason(error)}") from None
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp_name, mode)
        if replace:
            os.replace(temp_name, path)
        else:
            _link_without_clobbering(temp_name, path)
    except KeyFileError:
        raise
    except OSError as error:
        raise KeyFileError(path, f"cannot be written: {reason(error)}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)


def _link_without_clobbering(temp_name: str, path: Path) -> None:
    """Publish `temp_name` as `path` unless `path` appeared meanwhile (another process)."""
    try:
        os.link(temp_name, path)
    except FileExistsError:
        raise KeyFileError(path, ALREADY_EXISTS) from None
    except OSError:  # file system without hard links: a tiny race remains, as with adb
        if path.exists():
            raise KeyFileError(path, ALREADY_EXISTS) from None
        os.replace(temp_name, path)


def reason(error: OSError) -> str:
    return error.strerror or str(error)
