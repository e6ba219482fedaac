"""mDNS tests browse for real, inside a private network namespace (namespace.py): the suite's
ADBWIRE_MDNS=0 (tests/conftest.py) is lifted here."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _mdns_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADBWIRE_MDNS", raising=False)
