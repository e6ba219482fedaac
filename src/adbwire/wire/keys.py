"""The user's ADB keys: found, loaded and generated exactly as Google's adb does (where
they are and how their files are read and written: key_files.py).

What adb does (packages/modules/adb client/auth.cpp and adb_utils.cpp), and so do we:

- The user key is `$HOME/.android/adbkey` (the home directory from the password database
  when `$HOME` is unset; the user profile on Windows). adb ignores `$ANDROID_USER_HOME` and
  `$ANDROID_SDK_HOME`; so do we for the user key, so that a device that trusts the user's adb
  trusts adbwire too. If that file is missing, a 2048-bit key is generated there.
- `$ADB_VENDOR_KEYS` lists more keys, separated by `os.pathsep`: each entry is a key file, or
  a directory whose `*.adb_key` files (not recursively) are keys. Missing entries are skipped.
- Private keys are PEM; adb writes PKCS#8 (`BEGIN PRIVATE KEY`) with mode 0600 and reads
  that or PKCS#1 (`BEGIN RSA PRIVATE KEY`). `adbkey.pub` holds the Android-format public key
  and ` user@host`, with no newline. adb never reads `adbkey.pub`: the public key it sends is
  always derived from the private key; a stale `.pub` only earns a warning here.
- Tokens are signed with RSA PKCS#1 v1.5, the 20-byte token taken as a SHA-1 digest.

Where we differ on purpose: a key file that exists but is unreadable or malformed raises
`KeyFileError` naming it (adb logs and carries on); `$ANDROID_USER_HOME/adbkey` and
`$ANDROID_SDK_HOME/.android/adbkey` (the SDK tools' settings folder) are tried after the user key
when they exist, never created; keys are tried user key first (adb orders by fingerprint).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from adbwire.errors import KeyFileError, RemoteProtocolError, UsageError
from adbwire.wire import rsa_signer
from adbwire.wire.android_pubkey import (
    decode_android_numbers,
    decode_android_pubkey,
    encode_android_numbers,
    encode_android_pubkey,
    pack_android_pubkey,
)
from adbwire.wire.key_files import (
    ALREADY_EXISTS,
    ANDROID_DIR_MODE,
    PRIVATE_MODE,
    PUBLIC_MODE,
    android_dir,
    android_sdk_key_files,
    as_path,
    default_key_comment,
    default_key_file,
    default_key_path,
    expand_key_path,
    read_key_file,
    reason,
    vendor_key_paths,
    write_atomically,
)
from adbwire.wire.lazy_logging import get_logger

if TYPE_CHECKING:
    # cryptography loads only when a key is generated or its object is needed (TLS,
    # pairing, the simulator's check): a CLI command signs with rsa_signer (issue #20).
    # pathlib loads only off the common path too (key_files.py); `AdbKey.path` is made
    # when asked for.
    from pathlib import Path

    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.asymmetric.utils import Prehashed

__all__ = [
    "TOKEN_SIZE",
    "AdbKey",
    "android_dir",
    "decode_android_pubkey",
    "default_key_comment",
    "default_key_path",
    "encode_android_pubkey",
    "generate_key",
    "load_key",
    "load_keys",
    "vendor_key_paths",
    "verify_signature",
]

log = get_logger(__name__)

TOKEN_SIZE: Final = 20
"""adbd's AUTH tokens are 20 random bytes, signed as if they were a SHA-1 digest."""
KEY_BITS: Final = 2048
PURE_PYTHON_SIGNATURES: Final = 8
"""Tokens a key signs in pure Python (~8 ms each) before it loads into OpenSSL (~80 ms once,
with the import; ~1 ms a signature after): a command signs once, a farm or a server many
times."""


class AdbKey:
    """A private key loaded from `path`, ready to answer AUTH tokens.

    Made from a key file's checked RSA numbers (`load_key`: tokens are signed in pure
    Python, see rsa_signer) or from a cryptography key; `private_key`, the cryptography
    object TLS and pairing need, is loaded from the file's PEM on first use. Two keys are
    equal when their paths are.
    """

    __slots__ = ("_file", "_numbers", "_path", "_pem", "_private_key", "_pure_signatures")

    def __init__(
        self,
        path: str | os.PathLike[str],
        private_key: rsa.RSAPrivateKey | None = None,
        *,
        numbers: rsa_signer.RsaPrivateNumbers | None = None,
        pem: bytes | None = None,
    ) -> None:
        if private_key is None and (numbers is None or pem is None):
            raise UsageError("an AdbKey needs a cryptography key or the numbers and PEM")
        self._file = os.fspath(path)
        self._path: Path | None = None
        self._pure_signatures = 0
        self._private_key = private_key
        self._numbers = numbers
        self._pem = pem

    def __repr__(self) -> str:
        return f"AdbKey(path={self.path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AdbKey) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    @property
    def path(self) -> Path:
        """The key file."""
        if self._path is None:
            self._path = as_path(self._file)
        return self._path

    @property
    def private_key(self) -> rsa.RSAPrivateKey:
        """The cryptography key (parsed from the PEM, with OpenSSL's full check, once)."""
        if self._private_key is None:
            assert self._pem is not None  # __init__ sees to it
            self._private_key = _parse_key(self.path, self._pem)._private_key
            assert self._private_key is not None
        return self._private_key

    @property
    def public_key(self) -> rsa.RSAPublicKey:
        return self.private_key.public_key()

    @property
    def public_numbers(self) -> tuple[int, int]:
        """The modulus and public exponent, (n, e)."""
        if self._numbers is not None:
            return self._numbers.n, self._numbers.e
        numbers = self.private_key.public_key().public_numbers()
        return numbers.n, numbers.e

    def sign(self, token: bytes) -> bytes:
        """Sign an AUTH token the way adbd verifies it (PKCS#1 v1.5, token as SHA-1 digest)."""
        if len(token) != TOKEN_SIZE:
            raise RemoteProtocolError(
                f"the device sent a {len(token)}-byte AUTH token; ADB tokens are {TOKEN_SIZE}"
            )
        numbers = self._numbers
        if (
            numbers is not None
            and self._private_key is None
            and self._pure_signatures < PURE_PYTHON_SIGNATURES
        ):
            self._pure_signatures += 1  # a race only moves the switch by a signature
            return rsa_signer.sign_token(numbers, token)
        from cryptography.hazmat.primitives.asymmetric import padding  # noqa: PLC0415

        return self.private_key.sign(token, padding.PKCS1v15(), _token_hash())

    def public_key_bytes(self) -> bytes:
        """The AUTH RSAPUBLICKEY payload: `BASE64 user@host` and a NUL, as adb sends it."""
        return encode_android_numbers(*self.public_numbers, default_key_comment()) + b"\0"


def _token_hash() -> Prehashed:
    """adbd checks RSA_verify(NID_sha1, token): the protocol fixes SHA-1, we do not choose it."""
    from cryptography.hazmat.primitives import hashes  # noqa: PLC0415
    from cryptography.hazmat.primitives.asymmetric import utils  # noqa: PLC0415

    return utils.Prehashed(hashes.SHA1())  # noqa: S303


def load_keys(
    extra_paths: Iterable[str | os.PathLike[str]] = (), *, create: bool = True
) -> list[AdbKey]:
    """Every key to try, the user key first, each key once.

    Order: `~/.android/adbkey` (generated if missing and `create`), the SDK-home keys that
    exist, `$ADB_VENDOR_KEYS`, then `extra_paths` (files or directories like vendor entries,
    but a missing one is an error since the caller asked for it).
    """
    paths: list[str] = []
    user_key = default_key_file()
    if os.path.exists(user_key) or os.path.islink(user_key):
        paths.append(user_key)
    elif create:
        log.info("no ADB key at %s; generating one", user_key)
        try:
            generate_key(user_key)
        except KeyFileError:
            if not os.path.exists(user_key):  # another process created it first: use theirs
                raise
        paths.append(user_key)
    paths.extend(android_sdk_key_files())
    paths.extend(os.fspath(path) for path in vendor_key_paths())
    for extra in extra_paths:
        extra_path = as_path(extra)
        if not extra_path.exists():
            raise KeyFileError(extra_path, "does not exist")
        paths.extend(os.fspath(expanded) for expanded in expand_key_path(extra_path))

    keys: list[AdbKey] = []
    seen: set[tuple[int, int]] = set()
    for file in paths:
        key = load_key(file)
        numbers = key.public_numbers
        if numbers in seen:
            continue
        seen.add(numbers)
        keys.append(key)
        if file == user_key:
            _check_public_file(key)
    return keys


_PARSED_KEYS: dict[tuple[str, bytes], AdbKey] = {}
_PARSED_KEYS_LOCK = threading.Lock()
_MAX_PARSED_KEYS: Final = 64


def load_key(path: str | os.PathLike[str]) -> AdbKey:
    """Load one PEM private key; `KeyFileError` names the file and says what is wrong.

    The file is read every time, but a content already parsed is not parsed again: parsing
    and checking an RSA key through OpenSSL costs about 50 ms, which made every connect_tcp
    slow. adb's usual forms are read by rsa_signer (no OpenSSL); anything else, and every
    error message, comes from cryptography's loader.
    """
    file = os.fspath(path)
    data = read_key_file(file)
    with _PARSED_KEYS_LOCK:
        known = _PARSED_KEYS.get((file, data))
    if known is not None:
        return known
    numbers = rsa_signer.read_pem_private_key(data)
    key = AdbKey(file, numbers=numbers, pem=data) if numbers else _parse_key(as_path(file), data)
    with _PARSED_KEYS_LOCK:
        if len(_PARSED_KEYS) >= _MAX_PARSED_KEYS:
            _PARSED_KEYS.clear()
        _PARSED_KEYS[(file, data)] = key
    return key


def _parse_key(path: Path, data: bytes) -> AdbKey:
    if b"-----BEGIN" not in data:
        raise KeyFileError(path, "is not a PEM private key (no '-----BEGIN' line)")
    from cryptography.exceptions import UnsupportedAlgorithm  # noqa: PLC0415 - see imports
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415
    from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: PLC0415

    try:
        private_key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise KeyFileError(
            path, "is encrypted with a passphrase; adb keys must be unencrypted"
        ) from None
    except (ValueError, UnsupportedAlgorithm) as error:
        raise KeyFileError(path, f"is not a valid PEM private key ({error})") from None
    if not isinstance(private_key, rsa.RSAPrivateKey):
        kind = type(private_key).__name__
        raise KeyFileError(path, f"is not an RSA key but {kind}; ADB keys are RSA keys")
    if private_key.key_size != KEY_BITS:
        raise KeyFileError(
            path, f"is a {private_key.key_size}-bit RSA key; Android accepts only 2048-bit keys"
        )
    try:
        pack_android_pubkey(private_key.public_key())
    except UsageError as error:
        raise KeyFileError(path, str(error)) from None
    return AdbKey(path, private_key)


def _check_public_file(key: AdbKey) -> None:
    """Warn when `adbkey.pub` disagrees with `adbkey` (adb ignores it, so we do too)."""
    private_file = key._file  # the str of key.path, without pathlib
    public_file = private_file + ".pub"
    try:
        with open(public_file, "rb") as file:
            text = file.read()
    except FileNotFoundError:
        return
    except OSError as error:
        log.warning("%s: cannot be read (%s); it is not needed", public_file, reason(error))
        return
    try:
        modulus, exponent = decode_android_numbers(text, source=public_file)
    except KeyFileError as error:
        log.warning("%s; adb ignores this file too, the key in %s is used", error, private_file)
        return
    if (modulus, exponent) != key.public_numbers:
        log.warning(
            "%s does not match %s; the key in %s is used (regenerate the .pub to fix this)",
            public_file,
            private_file,
            private_file,
        )


def generate_key(
    path: str | os.PathLike[str], *, comment: str | None = None, force: bool = False
) -> AdbKey:
    """Create a 2048-bit key pair at `path` and `path.pub`, in adb's formats.

    The private key is PKCS#8 PEM, mode 0600 from the first byte on (written to a temporary
    file in the same directory, then moved into place). An existing key is never replaced
    unless `force`. The comment defaults to `user@host` as adb computes it.
    """
    path = as_path(path)
    if path.is_dir():
        raise KeyFileError(path, "is a directory, expected a key file path")
    if not force and (path.exists() or path.is_symlink()):
        raise KeyFileError(path, ALREADY_EXISTS)
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 - see imports
    from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: PLC0415

    private_key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    pem = private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    if comment is None:
        comment = default_key_comment()
    public_text = encode_android_pubkey(private_key.public_key(), comment)
    try:
        path.parent.mkdir(mode=ANDROID_DIR_MODE, parents=True, exist_ok=True)
    except OSError as error:
        raise KeyFileError(path, f"cannot create its directory: {reason(error)}") from None
    write_atomically(path, pem, PRIVATE_MODE, replace=force)
    write_atomically(path.with_name(path.name + ".pub"), public_text, PUBLIC_MODE, replace=True)
    return AdbKey(path, private_key)


def verify_signature(android_pubkey_text: str | bytes, token: bytes, signature: bytes) -> bool:
    """Does `signature` sign `token` for this Android-format public key? (adbd's check)

    A malformed key raises `KeyFileError`; a wrong signature or token size gives False.
    """
    public_key = decode_android_pubkey(android_pubkey_text)
    if len(token) != TOKEN_SIZE:
        return False
    from cryptography.exceptions import InvalidSignature  # noqa: PLC0415 - see imports
    from cryptography.hazmat.primitives.asymmetric import padding  # noqa: PLC0415

    try:
        public_key.verify(signature, token, padding.PKCS1v15(), _token_hash())
    except InvalidSignature:
        return False
    return True
