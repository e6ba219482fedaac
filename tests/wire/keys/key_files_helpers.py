"""Writing key files for the tests, and reading what was written."""

from __future__ import annotations

import stat
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from adbwire.wire.keys import AdbKey


def write_pem(
    path: Path,
    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey,
    fmt: serialization.PrivateFormat = serialization.PrivateFormat.PKCS8,
    encryption: serialization.KeySerializationEncryption | None = None,
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    encryption = encryption or serialization.NoEncryption()
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, fmt, encryption))
    return path


def same_key(a: AdbKey, b: rsa.RSAPrivateKey) -> bool:
    return a.public_key.public_numbers() == b.public_key().public_numbers()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)
