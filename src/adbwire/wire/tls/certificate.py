"""The self-signed certificate adb presents over TLS, made from an adb RSA key.

Wireless debugging (pairing and the TLS connection after STLS) identifies the host by its
adb key alone: adb wraps the key in a throwaway self-signed certificate each time it needs
one, and the device looks only at the public key inside. We build the same certificate as
AOSP's `adb::crypto::GenerateX509Certificate` (crypto/x509_generator.cpp):

- X.509 v3, serial number 1;
- subject = issuer = `C=US, O=Android, CN=Adb`;
- valid from now for 10 * 365 days (leap days not counted, as in adb);
- extensions, in this order: basicConstraints `critical, CA:TRUE`, keyUsage
  `critical, digitalSignature, keyCertSign, cRLSign`, subjectKeyIdentifier (the SHA-1 of the
  public key bits, OpenSSL's `hash`);
- signed by the key itself with SHA-256 and RSA PKCS#1 v1.5 (`sha256WithRSAEncryption`).

Use `certificate_for(key)` for the `cryptography` object and `tls_identity(key)` for the pair a
pyOpenSSL context or connection takes (`use_certificate`, `use_privatekey`).
"""

from __future__ import annotations

import datetime
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.x509.oid import NameOID
from OpenSSL import crypto

from adbwire.wire.keys import AdbKey

__all__ = [
    "CERTIFICATE_LIFETIME",
    "CERTIFICATE_NAME",
    "CERTIFICATE_SERIAL",
    "certificate_for",
    "tls_identity",
]

CERTIFICATE_LIFETIME: Final = datetime.timedelta(seconds=10 * 365 * 24 * 60 * 60)
CERTIFICATE_SERIAL: Final = 1
CERTIFICATE_NAME: Final = x509.Name(
    [
        x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Android"),
        x509.NameAttribute(NameOID.COMMON_NAME, "Adb"),
    ]
)


def certificate_for(key: AdbKey, *, now: datetime.datetime | None = None) -> x509.Certificate:
    """A fresh self-signed certificate for `key`, field for field as AOSP's adb makes it.

    `now` (timezone-aware, default: the current UTC time) is the start of validity.
    """
    start = (now or datetime.datetime.now(datetime.timezone.utc)).replace(microsecond=0)
    public_key = key.public_key
    builder = (
        x509.CertificateBuilder()
        .serial_number(CERTIFICATE_SERIAL)
        .subject_name(CERTIFICATE_NAME)
        .issuer_name(CERTIFICATE_NAME)
        .not_valid_before(start)
        .not_valid_after(start + CERTIFICATE_LIFETIME)
        .public_key(public_key)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
    )
    return builder.sign(key.private_key, hashes.SHA256())


def tls_identity(key: AdbKey) -> tuple[crypto.X509, crypto.PKey]:
    """`key`'s certificate and private key as pyOpenSSL objects, for a TLS context."""
    certificate = crypto.X509.from_cryptography(certificate_for(key))
    return certificate, crypto.PKey.from_cryptography_key(key.private_key)
