"""A DPoP proof's key is a stranger's input: its size is bounded before any work on it.

An RSA proof key must have a modulus of 2,048 to 4,096 bits and the exponent 65537; an EC
key must be on P-256. Anything else is refused with `invalid_dpop_proof` on the bytes of the
JWK alone, so a proof whose key is a random 16,384-bit modulus costs no more than an honest
ES256 proof. The attacker needs no credential: he posts to `/token`, as the review did.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from helpers import FieldpassServer, http_client
from helpers.dpop import DeviceKey
from helpers.process_cpu import process_seconds
from helpers.tokens import b64url_encode

REQUESTS = 10


def random_modulus(bits: int) -> int:
    """An odd number of exactly `bits` bits: what an attacker sends as `n`, no key behind it."""
    return secrets.randbits(bits) | (1 << (bits - 1)) | 1


def rsa_jwk(modulus: int, exponent: int = 65537) -> dict[str, str]:
    def b64(number: int) -> str:
        return b64url_encode(number.to_bytes((number.bit_length() + 7) // 8, "big"))

    return {"kty": "RSA", "n": b64(modulus), "e": b64(exponent)}


def forged_proof(jwk: dict[str, str], url: str) -> str:
    """A proof of a POST to `url` whose header carries `jwk` and whose signature is random bytes."""
    header = {"typ": "dpop+jwt", "alg": "RS256", "jwk": jwk}
    claims = {"htm": "POST", "htu": url, "iat": int(time.time()), "jti": str(uuid.uuid4())}
    parts = [b64url_encode(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims)]
    return ".".join([*parts, b64url_encode(secrets.token_bytes(256))])


def refresh_with(client: httpx.Client, server: FieldpassServer, proof: str) -> httpx.Response:
    """A refresh whose token is made up: only the proof is judged before the grant."""
    return client.post(
        f"{server.url}/token",
        data={"grant_type": "refresh_token", "refresh_token": "made-up-refresh-token"},
        headers={"DPoP": proof},
    )


def server_cpu_seconds(server: FieldpassServer) -> float:
    """User and system CPU of the server process so far."""
    assert server.process is not None
    return process_seconds([server.process.proc.pid])


def assert_refused_proof(response: httpx.Response) -> None:
    assert response.status_code == 400, (response.status_code, response.text)
    assert response.json()["error"] == "invalid_dpop_proof", response.text


OUT_OF_BOUNDS = {
    "16,384-bit modulus": lambda: rsa_jwk(random_modulus(16_384)),
    "8,192-bit modulus": lambda: rsa_jwk(random_modulus(8_192)),
    "4,097-bit modulus": lambda: rsa_jwk(random_modulus(4_097)),
    "2,047-bit modulus": lambda: rsa_jwk(random_modulus(2_047)),
    "e = 3": lambda: rsa_jwk(random_modulus(2_048), exponent=3),
    "even modulus": lambda: rsa_jwk(random_modulus(2_048) - 1),
}


@pytest.mark.parametrize("shape", OUT_OF_BOUNDS)
def test_a_proof_key_out_of_bounds_is_refused(server: FieldpassServer, shape: str) -> None:
    with http_client() as client:
        response = refresh_with(client, server, forged_proof(OUT_OF_BOUNDS[shape](), f"{server.public_url}/token"))
    assert_refused_proof(response)
    assert "RSA" in response.json()["error_description"], response.text


@pytest.mark.parametrize("bits", [2_048, 4_096])
def test_an_rsa_proof_key_at_the_bounds_is_accepted(server: FieldpassServer, bits: int) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    url = f"{server.public_url}/register_device"
    proof = jwt.encode(
        {"htm": "POST", "htu": url, "iat": int(time.time()), "jti": str(uuid.uuid4())}, key, algorithm="RS256",
        headers={"typ": "dpop+jwt", "jwk": rsa_jwk(key.public_key().public_numbers().n)},
    )
    registration = server.register(f"dpop-rsa-{bits}@example.com", headers={"DPoP": proof})
    assert registration.login_url


def test_huge_key_proofs_cost_less_cpu_than_es256_proofs(server: FieldpassServer, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"{server.public_url}/token"
    device = DeviceKey()
    with http_client() as client:
        before = server_cpu_seconds(server)
        for _ in range(REQUESTS):
            response = refresh_with(client, server, device.proof("POST", url))
            assert response.json()["error"] == "invalid_grant", response.text
        es256 = server_cpu_seconds(server) - before
        before = server_cpu_seconds(server)
        for _ in range(REQUESTS):
            assert_refused_proof(refresh_with(client, server, forged_proof(rsa_jwk(random_modulus(16_384)), url)))
        huge = server_cpu_seconds(server) - before
    with capsys.disabled():
        print(f"\nserver CPU for {REQUESTS} proofs: ES256 (accepted) {es256:.3f} s, 16,384-bit RSA (refused) {huge:.3f} s")
