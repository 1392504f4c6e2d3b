"""The server's JWTs and PyJWT's agree both ways, for ES256 and for RS256 signing keys.

The server signs and verifies its own tokens with OpenSSL keys parsed once, not with a JWT
library. An independent library must therefore (1) verify the tokens the server signs from
the published JWKS alone, and (2) sign tokens with the server's own key that the server
accepts, while the server refuses what only looks right: a signature by another key under
the server's kid, a signature with one byte changed, and, for ES256, a DER-encoded ECDSA
signature where JWS requires raw r||s (RFC 7518 section 3.4).

Each algorithm gets its own server, whose only key is made by `fieldpass keys generate
--alg <alg>`; dev's service account is there for client_credentials and /introspect.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from helpers import (
    ACCESS_TOKEN_TTL,
    AUDIENCE,
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    SignedIn,
    assert_json,
    b64url_decode,
    b64url_encode,
    sign_in,
    start_server,
    unique_email,
    verify_jwt,
)
from oauth_flows import assert_active, assert_inactive, assert_me_refused

PrivateKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey

ALGORITHMS = ("ES256", "RS256")
KEY_TYPES = {"ES256": "EC", "RS256": "RSA"}
KINDS = ("device", "service")


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module", params=ALGORITHMS)
def signing_server(
    request: pytest.FixtureRequest, fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """A server whose one signing key is a new key of the algorithm `request.param`."""
    alg: str = request.param
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp(f"server-{alg}"), environments=DIRECTORY_ENVIRONMENTS, key_alg=alg
    )
    try:
        yield server
    finally:
        server.stop()


@dataclass(frozen=True)
class Issued:
    """Access tokens the server signed: a device's (after a real sign-in) and a service account's."""

    device: SignedIn
    service: str

    def token(self, kind: str) -> str:
        return {"device": self.device.access_token, "service": self.service}[kind]


@pytest.fixture(scope="module")
def issued(signing_server: FieldpassServer) -> Issued:
    device = sign_in(signing_server, unique_email("interop"))
    with IntegrationClient(signing_server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as client:
        service = client.authenticate()["access_token"]
    return Issued(device, service)


# --------------------------------------------------------------------------- JWT pieces


def server_key(server: FieldpassServer) -> PrivateKey:
    """The server's private key, read from its PEM like any other tool would."""
    (pem,) = server.keys_dir.glob("*.pem")
    key = serialization.load_pem_private_key(pem.read_bytes(), password=None)
    assert isinstance(key, {"ES256": ec.EllipticCurvePrivateKey, "RS256": rsa.RSAPrivateKey}[server.key_alg]), key
    return key


def fresh_key(alg: str) -> PrivateKey:
    if alg == "ES256":
        return ec.generate_private_key(ec.SECP256R1())
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pyjwt_signed(token: str, key: PrivateKey) -> str:
    """`token`'s claims with a fresh jti, signed by PyJWT with `key` and the same alg/kid/typ.

    The fresh jti makes the result differ from `token` even where the signature is
    deterministic (RS256), so the server cannot just be recognising its own bytes."""
    header = jwt.get_unverified_header(token)
    claims = {**jwt.decode(token, options={"verify_signature": False}), "jti": str(uuid.uuid4())}
    signed = jwt.encode(claims, key, algorithm=header["alg"], headers={"kid": header["kid"], "typ": "JWT"})
    assert jwt.get_unverified_header(signed) == header and signed != token, (header, signed)
    return signed


def raw_signature(token: str) -> bytes:
    return b64url_decode(token.rsplit(".", 1)[1])


def with_signature(token: str, signature: bytes) -> str:
    return f"{token.rsplit('.', 1)[0]}.{b64url_encode(signature)}"


def jti_of(token: str) -> str:
    return jwt.decode(token, options={"verify_signature": False})["jti"]


def assert_refused(server: FieldpassServer, token: str) -> None:
    """Refused everywhere a bearer token is checked: /me says 401, introspection inactive."""
    assert_me_refused(server, token)
    assert_inactive(server, token)


# --------------------------------------------------------------------------- server -> PyJWT


@pytest.mark.parametrize("kind", KINDS)
def test_server_signed_tokens_verify_with_pyjwt_from_the_jwks(
    signing_server: FieldpassServer, issued: Issued, kind: str
) -> None:
    """A relying party needs nothing but the JWKS: the header names the JWKS key exactly and
    PyJWT, allowing only the server's algorithm, verifies signature, iss, aud and exp."""
    server, alg = signing_server, signing_server.key_alg
    token = issued.token(kind)
    jwks = server.jwks()
    (jwk,) = jwks["keys"]
    assert jwk["kty"] == KEY_TYPES[alg], jwk

    assert jwt.get_unverified_header(token) == {"alg": alg, "kid": jwk["kid"], "typ": "JWT"}
    claims = verify_jwt(token, jwks, issuer=server.public_url, audience=AUDIENCE, algorithms=[alg])

    now = time.time()
    assert now < claims["exp"] <= now + ACCESS_TOKEN_TTL + 5, claims
    if kind == "device":
        assert claims["sub"] == issued.device.user_id and claims["email"] == issued.device.email, claims


# --------------------------------------------------------------------------- PyJWT -> server


def test_device_token_signed_by_pyjwt_with_the_servers_key_is_accepted(
    signing_server: FieldpassServer, issued: Issued
) -> None:
    """PyJWT's signature (alg, kid, typ and claims as the server's) is as good as the server's."""
    server = signing_server
    token = pyjwt_signed(issued.device.access_token, server_key(server))

    me = assert_json(server.api("GET", "/me", token=token))

    assert me["user"]["id"] == issued.device.user_id and me["user"]["email"] == issued.device.email, me
    body = assert_active(server, token)
    assert body["sub"] == issued.device.user_id and body["jti"] == jti_of(token), body


def test_service_token_signed_by_pyjwt_with_the_servers_key_is_accepted(
    signing_server: FieldpassServer, issued: Issued
) -> None:
    """The same for a client_credentials token: the integration API takes it."""
    server = signing_server
    token = pyjwt_signed(issued.service, server_key(server))

    feed = assert_json(server.api("GET", "/integration/realms", token=token))

    assert isinstance(feed.get("realms"), list), feed
    body = assert_active(server, token)
    assert body["client_id"] == DEV_BACKEND.id and body["jti"] == jti_of(token), body


def _signed_by_another_key(server: FieldpassServer, token: str) -> str:
    return pyjwt_signed(token, fresh_key(server.key_alg))


def _one_signature_byte_flipped(server: FieldpassServer, token: str) -> str:
    """The server's own token with one bit of its signature changed: nothing else differs."""
    signature = bytearray(raw_signature(token))
    signature[len(signature) // 2] ^= 0x01
    return with_signature(token, bytes(signature))


FORGERIES: dict[str, Callable[[FieldpassServer, str], str]] = {
    "another-key-under-the-servers-kid": _signed_by_another_key,
    "one-signature-byte-flipped": _one_signature_byte_flipped,
}


@pytest.mark.parametrize("forge", FORGERIES.values(), ids=FORGERIES.keys())
def test_bad_signatures_are_refused(
    signing_server: FieldpassServer, issued: Issued, forge: Callable[[FieldpassServer, str], str]
) -> None:
    """Only the server's key, and its exact signature bytes, make a token; the kid alone does not."""
    server = signing_server
    forged = forge(server, issued.device.access_token)
    assert len(raw_signature(forged)) == len(raw_signature(issued.device.access_token)), forged

    assert_refused(server, forged)


@pytest.mark.parametrize("signing_server", ["ES256"], indirect=True)
def test_der_encoded_ecdsa_signature_is_refused(signing_server: FieldpassServer, issued: Issued) -> None:
    """A naive signer emits ECDSA's DER form; JWS requires raw r||s, so the very same
    signature (valid over the same bytes, by the server's key) must not pass as DER."""
    server = signing_server
    key = server_key(server)
    good = pyjwt_signed(issued.device.access_token, key)
    raw = raw_signature(good)
    assert len(raw) == 64, len(raw)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    signing_input = good.rsplit(".", 1)[0].encode()
    key.public_key().verify(der, signing_input, ec.ECDSA(hashes.SHA256()))  # raises if not the same signature

    assert_refused(server, with_signature(good, der))
