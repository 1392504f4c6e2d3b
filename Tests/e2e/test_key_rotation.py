"""Signing-key rotation with no restart.

`fieldpass keys rotate` adds a key; the running server re-reads its keys folder on SIGHUP
(and every minute). The new key is in the JWKS at once but signs only after
`tokens.key_publish_delay`, so a verifier that cached the JWKS has it first; tokens the old
key signed keep verifying, from the JWKS and at the server, also after its file is removed
(it stays published for an access token's lifetime). A folder that goes bad keeps the keys
in use, and a key file others may read is a warning naming the file.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import jwt
import pytest

from helpers import (
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    server_env,
    server_in,
    sign_in,
    unique_email,
    wait_until,
)
from oauth_flows import assert_active, assert_me_works

# Long enough to see the new key published but not yet signing, short enough to wait out.
PUBLISH_DELAY = 4


@pytest.fixture
def rotating_server(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> Iterator[FieldpassServer]:
    server = server_in(tmp_path, fieldpass_bin, idp, server_env(None, DIRECTORY_ENVIRONMENTS), environments=DIRECTORY_ENVIRONMENTS)
    server.key_publish_delay = PUBLISH_DELAY
    server.start()
    try:
        yield server
    finally:
        server.stop()


def service_token(server: FieldpassServer) -> str:
    with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as client:
        return client.authenticate()["access_token"]


def kid_of(token: str) -> str:
    return jwt.get_unverified_header(token)["kid"]


def jwks_kids(server: FieldpassServer) -> list[str]:
    return [key["kid"] for key in server.jwks()["keys"]]


def hang_up(server: FieldpassServer) -> None:
    assert server.process is not None
    server.process.proc.send_signal(signal.SIGHUP)


def keys_list(server: FieldpassServer) -> dict[str, str]:
    """kid → state, from `fieldpass keys list`."""
    result = server.cli("keys", "list", "--config", str(server.config_path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["KID", "ALG", "STATE"], result.stdout
    return {line.split()[0]: line.split()[2] for line in lines[1:]}


def rotate(server: FieldpassServer) -> tuple[str, Path]:
    before = set(server.keys_dir.glob("*.pem"))
    result = server.cli("keys", "rotate", "--config", str(server.config_path))
    assert result.returncode == 0, result.stderr
    (added,) = set(server.keys_dir.glob("*.pem")) - before
    kid = re.search(r"key (\S+) in ", result.stdout)
    assert kid, result.stdout
    return kid.group(1), added


def test_a_rotated_key_is_published_first_signs_later_and_old_tokens_keep_working(rotating_server: FieldpassServer) -> None:
    server = rotating_server
    pid = server.process.proc.pid if server.process else None
    device = sign_in(server, unique_email("rotation"))
    old_kid = kid_of(device.access_token)
    (old_file,) = server.keys_dir.glob("*.pem")

    new_kid, new_file = rotate(server)
    assert keys_list(server) == {old_kid: "signing", new_kid: "next"}
    hang_up(server)
    wait_until(lambda: new_kid in jwks_kids(server), timeout=5, what="the new key in the JWKS after SIGHUP")
    assert jwks_kids(server) == [old_kid, new_kid]
    # Within the delay the old key still signs, and a JWKS-only verifier knows both.
    assert time.time() < new_file.stat().st_mtime + PUBLISH_DELAY, "the machine was too slow to see the delay"
    during = service_token(server)
    assert kid_of(during) == old_kid
    server.verify_access_token(during)

    # After the delay the new key signs, with no reload needed.
    time.sleep(max(0.0, new_file.stat().st_mtime + PUBLISH_DELAY - time.time()) + 0.2)
    after = service_token(server)
    assert kid_of(after) == new_kid
    assert server.verify_access_token(after)["sub"] == f"service:{DEV_BACKEND.id}"
    assert keys_list(server) == {new_kid: "signing", old_kid: "retiring"}
    # The device's token from before the rotation still verifies, there and at the server.
    server.verify_access_token(device.access_token)
    assert_me_works(server, device.access_token)

    # The old file removed: the key stays published until its last token has expired.
    old_file.unlink()
    hang_up(server)
    time.sleep(0.5)
    assert old_kid in jwks_kids(server)
    server.verify_access_token(device.access_token)
    assert_me_works(server, device.access_token)
    assert server.process is not None and server.process.proc.pid == pid and server.process.proc.poll() is None


def test_a_bad_key_file_keeps_the_keys_in_use(rotating_server: FieldpassServer) -> None:
    server = rotating_server
    before = jwks_kids(server)
    token = service_token(server)
    (server.keys_dir / "broken.pem").write_text("not a key")
    hang_up(server)
    wait_until(lambda: "broken.pem" in server.log_tail(), timeout=5, what="the bad file named in the log")
    assert jwks_kids(server) == before
    assert kid_of(service_token(server)) == kid_of(token)
    assert_active(server, token)


def test_a_key_file_others_may_read_is_a_warning_naming_it(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = server_in(tmp_path, fieldpass_bin, idp, server_env(None, None))
    server.generate_key()
    (key_file,) = server.keys_dir.glob("*.pem")
    os.chmod(key_file, 0o644)
    server.start(new_key=False)
    try:
        wait_until(lambda: str(key_file) in server.log_tail(), timeout=5, what="a warning naming the key file")
        line = next(line for line in server.log_tail().splitlines() if str(key_file) in line)
        assert "readable by group or others" in line, line
    finally:
        server.stop()
