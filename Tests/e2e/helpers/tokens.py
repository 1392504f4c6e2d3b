"""Base64url, JWK thumbprints, and JWT verification from a JWKS alone."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import jwt


def b64url_decode(data: str) -> bytes:
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwk_thumbprint(jwk: Mapping[str, Any]) -> str:
    """RFC 7638 thumbprint (SHA-256, base64url) of a public EC or RSA JWK."""
    members = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n")}[jwk["kty"]]
    canonical = json.dumps(
        {name: jwk[name] for name in members}, separators=(",", ":"), sort_keys=True
    )
    return b64url_encode(hashlib.sha256(canonical.encode()).digest())


def verify_jwt(
    token: str, jwks: Mapping[str, Any], *, issuer: str, audience: str,
    algorithms: Sequence[str] = ("ES256",),
) -> dict[str, Any]:
    """Verify like a sync server would: our JWKS alone, only `algorithms` (ES256 unless
    told otherwise), all claims checked."""
    header = jwt.get_unverified_header(token)
    kid = header.get("kid")
    keys = jwt.PyJWKSet.from_dict(dict(jwks))
    key = keys[kid]  # raises KeyError for an unknown kid
    return jwt.decode(
        token,
        key.key,
        algorithms=list(algorithms),
        issuer=issuer,
        audience=audience,
        leeway=5,
        options={"require": ["exp", "iat", "nbf", "iss", "aud", "sub", "jti"]},
    )


def reforge(token: str, *, header: dict[str, Any] | None = None, claims: dict[str, Any] | None = None) -> str:
    """`token` with header members or claims changed and its old signature kept: a forgery."""
    head, payload, signature = token.split(".")
    if header is not None:
        head = b64url_encode(json.dumps({**json.loads(b64url_decode(head)), **header}).encode())
    if claims is not None:
        payload = b64url_encode(json.dumps({**json.loads(b64url_decode(payload)), **claims}).encode())
    return ".".join([head, payload, signature])
