"""adbd's side of a TLS connection (wireless debugging), as daemon/auth.cpp does it.

- The device's own certificate comes from a random RSA-2048 key made once per process
  (adbd keeps one `rsa_pkey` for its lifetime); hosts do not check it.
- TLS 1.3 only; the client must present a certificate (SSL_VERIFY_PEER |
  SSL_VERIFY_FAIL_IF_NO_PEER_CERT). It is accepted when its public key is one of the device's
  authorized keys (adbd_tls_verify_cert); self-signed is fine, nothing else is checked. A
  device that does not require auth accepts any certificate.
- The CertificateRequest lists every authorized key as a CA name `O=AdbKey-0, CN=<SHA-256
  of the key's DER SubjectPublicKeyInfo in upper-case hex>` (adbd_tls_client_ca_list), so
  a host with several keys can present the one the device knows.

The fingerprint is computed here separately from `adbwire.wire.tls.client` on purpose: a
bug in one side cannot hide in the other.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import logging
import socket
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from OpenSSL import SSL, crypto

from adbwire.errors import AdbwireError
from adbwire.wire.keys import AdbKey
from adbwire.wire.timeouts import Deadline
from adbwire.wire.tls.certificate import certificate_for
from adbwire.wire.tls.channel import TlsChannel

__all__ = ["HANDSHAKE_TIMEOUT", "STLS_VERSION", "DeviceTlsLink", "accept_tls", "ca_name_for"]

log = logging.getLogger("adbwire.testing")

STLS_VERSION: Final = 0x01000000
"""A_STLS_VERSION, sent in the device's STLS."""
HANDSHAKE_TIMEOUT: Final = 10.0
"""How long the device waits for a host to finish the TLS handshake before dropping it."""

_key_lock = threading.Lock()
_device_key: AdbKey | None = None


def _device_identity() -> AdbKey:
    global _device_key  # noqa: PLW0603 - one key per process, like adbd's rsa_pkey
    with _key_lock:
        if _device_key is None:
            private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            _device_key = AdbKey(Path("<simulated adbd>"), private_key)
        return _device_key


@functools.lru_cache(maxsize=1)
def _device_certificate(identity: AdbKey) -> x509.Certificate:
    return certificate_for(identity)


def ca_name_for(public_key: rsa.RSAPublicKey) -> x509.Name:
    """The CA name adbd lists for an authorized key."""
    der = public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    fingerprint = hashlib.sha256(der).hexdigest().upper()
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "AdbKey-0"),
            x509.NameAttribute(NameOID.COMMON_NAME, fingerprint),
        ]
    )


@functools.lru_cache(maxsize=256)
def _name_carrier(name: x509.Name, signer: AdbKey) -> x509.Certificate:
    """pyOpenSSL adds client CA names from certificates (their subject): one per name,
    made once (signing costs a millisecond or two per key and connection otherwise)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now)
        .public_key(signer.public_key)
        .sign(signer.private_key, hashes.SHA256())
    )


def _server_connection(
    authorized: Sequence[rsa.RSAPublicKey], *, auth_required: bool
) -> SSL.Connection:
    identity = _device_identity()
    context = SSL.Context(SSL.TLS_METHOD)
    context.set_min_proto_version(SSL.TLS1_3_VERSION)
    context.set_max_proto_version(SSL.TLS1_3_VERSION)
    context.use_certificate(_device_certificate(identity))
    context.use_privatekey(identity.private_key)
    known = {key.public_numbers() for key in authorized}

    def verify(
        _connection: SSL.Connection, certificate: crypto.X509, _error: int, depth: int, _ok: int
    ) -> bool:
        if depth > 0 or not auth_required:
            return True
        public_key = certificate.to_cryptography().public_key()
        trusted = isinstance(public_key, rsa.RSAPublicKey) and public_key.public_numbers() in known
        if not trusted:
            log.info("TLS: the host's key is not authorized; refusing the handshake")
        return trusted

    context.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, verify)
    if auth_required:
        for key in authorized:
            context.add_client_ca(_name_carrier(ca_name_for(key), identity))
    connection = SSL.Connection(context, None)
    connection.set_accept_state()
    return connection


class DeviceTlsLink:
    """The device's packet I/O over TLS, with the plain socket's error conventions:
    `recv_into` returns 0 at the end, `send` raises OSError when the link failed."""

    def __init__(self, channel: TlsChannel) -> None:
        self._channel = channel

    def recv_into(self, view: memoryview) -> int:
        try:
            return self._channel.receive_into(view)
        except AdbwireError as error:
            log.debug("TLS read failed: %s", error)
            return 0

    def send(self, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        try:
            self._channel.send(parts)
        except AdbwireError as error:
            raise OSError(str(error)) from error


def accept_tls(
    sock: socket.socket,
    authorized: Sequence[rsa.RSAPublicKey],
    *,
    auth_required: bool,
    initial: bytes,
    timeout: float | None = None,
) -> DeviceTlsLink | None:
    """Run the server handshake after the host's STLS; None when it failed (adbd then
    drops the connection: one attempt only). `timeout` defaults to HANDSHAKE_TIMEOUT."""
    timeout = HANDSHAKE_TIMEOUT if timeout is None else timeout
    try:
        channel = TlsChannel.establish(
            sock,
            _server_connection(authorized, auth_required=auth_required),
            peer="the host",
            deadline=Deadline(timeout, "the TLS handshake"),
            initial=initial,
        )
    except (AdbwireError, OSError) as error:
        log.info("TLS handshake with the host failed: %s", error)
        return None
    return DeviceTlsLink(channel)
