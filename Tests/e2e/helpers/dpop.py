"""A device's DPoP key (RFC 9449) and the proofs it signs, made with `cryptography` and
PyJWT as an app would make them."""

from __future__ import annotations

import hashlib
import time
import uuid
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from .tokens import b64url_encode, jwk_thumbprint


class DeviceKey:
    """A P-256 key held by the device, and the proofs it signs."""

    def __init__(self) -> None:
        self.private = ec.generate_private_key(ec.SECP256R1())
        numbers = self.private.public_key().public_numbers()
        self.jwk = {
            "kty": "EC", "crv": "P-256",
            "x": b64url_encode(numbers.x.to_bytes(32, "big")), "y": b64url_encode(numbers.y.to_bytes(32, "big")),
        }
        self.thumbprint = jwk_thumbprint(self.jwk)

    def proof(self, method: str, url: str, **claims: Any) -> str:
        """A proof of `method` to `url`, with a new `jti` and `iat` now; `claims` add or replace."""
        body = {"htm": method, "htu": url, "iat": int(time.time()), "jti": str(uuid.uuid4()), **claims}
        return jwt.encode(body, self.private, algorithm="ES256", headers={"typ": "dpop+jwt", "jwk": self.jwk})


def pem_key_thumbprint(path: Path) -> str:
    """The RFC 7638 thumbprint of the P-256 private key a device keeps in the PEM file at `path`,
    read back independently of the library that wrote it."""
    key = load_pem_private_key(path.read_bytes(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp256r1", type(key)
    numbers = key.public_key().public_numbers()
    return jwk_thumbprint({"kty": "EC", "crv": "P-256", "x": b64url_encode(numbers.x.to_bytes(32, "big")),
                           "y": b64url_encode(numbers.y.to_bytes(32, "big"))})


def token_hash(access_token: str) -> str:
    """A proof's `ath` for `access_token`."""
    return b64url_encode(hashlib.sha256(access_token.encode()).digest())
