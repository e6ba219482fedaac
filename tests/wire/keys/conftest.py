"""Every test of the keys runs with HOME and the Android variables pointed into tmp_path, so
the machine's real ~/.android is never read or written."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in ("ANDROID_USER_HOME", "ANDROID_SDK_HOME", "ADB_VENDOR_KEYS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in (("LOGNAME", "alice"), ("USERNAME", "alice")):
        monkeypatch.setenv(name, value)
    for name in ("HOSTNAME", "COMPUTERNAME"):
        monkeypatch.setenv(name, "box")
    assert Path.home() == home
    return home


@pytest.fixture(scope="module")
def spare() -> list[rsa.RSAPrivateKey]:
    """Pre-made 2048-bit keys, so that most tests do not pay for key generation."""
    return [rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(3)]
