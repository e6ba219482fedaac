"""The host's TLS client for wireless debugging: which certificate to show, and when.

As AOSP's adb does (client/auth.cpp adb_tls_set_certificate, tls/adb_ca_list.cpp):

- TLS 1.3 only; the device's certificate is not checked (it is a throwaway self-signed one:
  trust comes from the device knowing our key, established by pairing).
- The device's CertificateRequest lists the keys it knows as CA names
  `O=AdbKey-0, CN=<SHA-256 of the key's SubjectPublicKeyInfo, 64 hex digits>`. When one of
  them is one of our keys, we present that key's certificate; otherwise the first key's
  (the device may not require authentication at all, or list nothing).

pyOpenSSL has no certificate callback, so the choice is made in the info callback: it runs
at each step of the client's state machine, and the first step after the CertificateRequest
arrived, long before our Certificate message is written, swaps in the chosen key.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Sequence
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from OpenSSL import SSL

from adbwire.errors import UsageError
from adbwire.wire.keys import AdbKey
from adbwire.wire.tls.certificate import certificate_for

__all__ = [
    "ADB_KEY_CA_IDENTIFIER",
    "client_connection",
    "key_fingerprint",
    "listed_fingerprints",
]

log = logging.getLogger(__name__)

ADB_KEY_CA_IDENTIFIER: Final = b"AdbKey-0"
"""The organizationName that marks a CA name carrying an adb key fingerprint (version 0)."""
_FINGERPRINT_HEX_DIGITS: Final = 64


def key_fingerprint(public_key: rsa.RSAPublicKey) -> bytes:
    """SHA-256 of the key's DER SubjectPublicKeyInfo (what adb's hash_key computes)."""
    der = public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return hashlib.sha256(der).digest()


def listed_fingerprints(names: Sequence[Sequence[tuple[bytes, bytes]]]) -> list[bytes]:
    """The key fingerprints in CA names given as (field, value) pairs; others are skipped."""
    found: list[bytes] = []
    for components in names:
        fields = dict(components)
        if fields.get(b"O") != ADB_KEY_CA_IDENTIFIER:
            continue
        text = fields.get(b"CN", b"")
        if len(text) != _FINGERPRINT_HEX_DIGITS:
            continue
        try:
            found.append(bytes.fromhex(text.decode("ascii")))
        except ValueError:
            continue
    return found


def client_connection(keys: Sequence[AdbKey]) -> SSL.Connection:
    """An unstarted TLS 1.3 client over memory BIOs that presents one of `keys`."""
    if not keys:
        raise UsageError("the device requires TLS (wireless debugging) and no adb key was given")
    context = SSL.Context(SSL.TLS_METHOD)
    context.set_min_proto_version(SSL.TLS1_3_VERSION)
    context.set_max_proto_version(SSL.TLS1_3_VERSION)
    context.set_verify(SSL.VERIFY_NONE)
    context.use_certificate(_certificate(keys[0]))
    context.use_privatekey(keys[0].private_key)
    chooser = _KeyChooser(keys)
    context.set_info_callback(chooser)
    connection = SSL.Connection(context, None)
    connection.set_connect_state()
    return connection


_certificates: dict[tuple[int, int], x509.Certificate] = {}
_certificates_lock = threading.Lock()


def _certificate(key: AdbKey) -> x509.Certificate:
    """The key's certificate, made once per process (a signature costs a millisecond or two
    per connection otherwise; the device reads only the key in it)."""
    numbers = key.public_key.public_numbers()
    with _certificates_lock:
        certificate = _certificates.get((numbers.n, numbers.e))
        if certificate is None:
            certificate = _certificates[(numbers.n, numbers.e)] = certificate_for(key)
        return certificate


class _KeyChooser:
    """The info callback: once the device listed the keys it knows, present one of those."""

    def __init__(self, keys: Sequence[AdbKey]) -> None:
        self._keys = {key_fingerprint(key.public_key): key for key in reversed(keys)}
        self._decided = False

    def __call__(self, connection: SSL.Connection, where: int, _result: int) -> None:
        if self._decided or not where & SSL.SSL_CB_CONNECT_LOOP:
            return
        names = connection.get_client_ca_list()
        if not names:
            return
        self._decided = True
        for fingerprint in listed_fingerprints([name.get_components() for name in names]):
            key = self._keys.get(fingerprint)
            if key is not None:
                log.debug("the device knows %s; presenting it", key.path)
                connection.use_certificate(_certificate(key))
                connection.use_privatekey(key.private_key)
                return
        log.debug("the device lists none of our keys; trying the first one")
