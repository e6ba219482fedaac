"""The adb key's certificate, field by field against AOSP's crypto/x509_generator.cpp."""

from __future__ import annotations

import datetime

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.x509.oid import ExtensionOID, NameOID, SignatureAlgorithmOID
from OpenSSL import crypto

from adbwire.wire.keys import AdbKey
from adbwire.wire.tls.certificate import certificate_for, tls_identity

_NOW = datetime.datetime(2026, 3, 4, 5, 6, 7, 890, tzinfo=datetime.timezone.utc)


def test_subject_issuer_serial_and_version(adb_key: AdbKey) -> None:
    certificate = certificate_for(adb_key, now=_NOW)
    expected = [(NameOID.COUNTRY_NAME, "US"), (NameOID.ORGANIZATION_NAME, "Android")]
    expected.append((NameOID.COMMON_NAME, "Adb"))
    assert [(a.oid, a.value) for a in certificate.subject] == expected
    assert certificate.issuer == certificate.subject
    assert certificate.serial_number == 1
    assert certificate.version is x509.Version.v3


def test_validity_is_ten_times_365_days_from_now(adb_key: AdbKey) -> None:
    certificate = certificate_for(adb_key, now=_NOW)
    start = _NOW.replace(microsecond=0)
    assert certificate.not_valid_before_utc == start
    assert certificate.not_valid_after_utc - start == datetime.timedelta(days=3650)


def test_default_validity_starts_now(adb_key: AdbKey) -> None:
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    certificate = certificate_for(adb_key)
    after = datetime.datetime.now(datetime.timezone.utc)
    assert before <= certificate.not_valid_before_utc <= after


def test_key_and_self_signature(adb_key: AdbKey) -> None:
    certificate = certificate_for(adb_key, now=_NOW)
    assert certificate.public_key() == adb_key.public_key
    assert certificate.signature_algorithm_oid == SignatureAlgorithmOID.RSA_WITH_SHA256
    assert certificate.signature_hash_algorithm is not None
    assert certificate.signature_hash_algorithm.name == "sha256"
    adb_key.public_key.verify(
        certificate.signature,
        certificate.tbs_certificate_bytes,
        padding.PKCS1v15(),
        hashes.SHA256(),
    )


def test_extensions_in_aosp_order(adb_key: AdbKey) -> None:
    certificate = certificate_for(adb_key, now=_NOW)
    extensions = list(certificate.extensions)
    assert [e.oid for e in extensions] == [
        ExtensionOID.BASIC_CONSTRAINTS,
        ExtensionOID.KEY_USAGE,
        ExtensionOID.SUBJECT_KEY_IDENTIFIER,
    ]
    basic, usage, key_id = (e.value for e in extensions)
    assert [e.critical for e in extensions] == [True, True, False]
    assert isinstance(basic, x509.BasicConstraints)
    assert basic.ca is True
    assert basic.path_length is None
    assert isinstance(usage, x509.KeyUsage)
    granted = {
        name
        for name in (
            "digital_signature",
            "content_commitment",
            "key_encipherment",
            "data_encipherment",
            "key_agreement",
            "key_cert_sign",
            "crl_sign",
        )
        if getattr(usage, name)
    }
    assert granted == {"digital_signature", "key_cert_sign", "crl_sign"}
    # OpenSSL's "hash": SHA-1 of the subjectPublicKey BIT STRING contents.
    spki = adb_key.public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.PKCS1
    )
    digest = hashes.Hash(hashes.SHA1())  # the identifier OpenSSL computes
    digest.update(spki)
    assert isinstance(key_id, x509.SubjectKeyIdentifier)
    assert key_id.digest == digest.finalize()


def test_tls_identity_matches_the_key(adb_key: AdbKey) -> None:
    certificate, private_key = tls_identity(adb_key)
    assert isinstance(certificate, crypto.X509)
    assert certificate.to_cryptography().public_key() == adb_key.public_key
    assert private_key.to_cryptography_key().public_key() == adb_key.public_key  # type: ignore[union-attr]


def test_fields_agree_with_adb_shell_wifi(adb_key: AdbKey) -> None:
    """adb-shell-wifi ports the same AOSP function on its own: everything but the times and
    the signature must be identical."""
    oracle = pytest.importorskip("adb_shell_wifi.auth.x509", reason="adb-shell-wifi not installed")
    theirs = oracle.generate_x509_certificate(adb_key.private_key)
    ours = certificate_for(adb_key)
    assert ours.subject == theirs.subject
    assert ours.issuer == theirs.issuer
    assert ours.serial_number == theirs.serial_number
    assert ours.version == theirs.version
    assert ours.public_key() == theirs.public_key()
    assert ours.signature_algorithm_oid == theirs.signature_algorithm_oid
    assert list(ours.extensions) == list(theirs.extensions)
    lifetime = theirs.not_valid_after_utc - theirs.not_valid_before_utc
    assert ours.not_valid_after_utc - ours.not_valid_before_utc == lifetime
