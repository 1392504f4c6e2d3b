"""The `fieldpass` command line: onboard as a device, realms, keys."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from helpers import (
    server_in,
    start_server,
    FieldpassServer,
    MockIdP,
    WatchedCommand,
    browser_login,
    http_client,
    open_confirmation,
    clean_env,
    cli_output,
    describe,
    is_html,
)

from helpers.dpop import pem_key_thumbprint

REALM_PATH = re.compile(r"/users/[A-Za-z0-9._~:-]+")
CODE_PREFIX = "Code: "
LOGIN_PREFIX = "Login URL: "
THUMBPRINT_PREFIX = "DPoP key thumbprint: "


@pytest.fixture
def onboard(server: FieldpassServer, email: str, tmp_path: Path):
    """Starts `fieldpass onboard EMAIL` against the server, its stdout read as it comes
    (`fieldpass onboard` flushes each line)."""
    started: list[WatchedCommand] = []

    def start(*options: str, on: FieldpassServer = server) -> WatchedCommand:
        argv = [str(on.binary), "onboard", email, "--server", on.public_url, *options]
        started.append(WatchedCommand("onboard", argv, on.env, tmp_path))
        return started[-1]

    yield start
    for process in started:
        process.kill()


def test_onboard_command_completes_after_data_ready(
    server: FieldpassServer, email: str, onboard
) -> None:
    device = onboard()
    code = device.wait_for_line(lambda line: line.startswith(CODE_PREFIX), "'Code: ' line")[len(CODE_PREFIX) :].strip()
    url = device.wait_for_line(lambda line: line.startswith(LOGIN_PREFIX), "'Login URL: ' line")
    login_url = url[len(LOGIN_PREFIX) :].strip()
    # The person compares the terminal's code with the confirmation page's.
    with http_client() as client:
        assert open_confirmation(login_url, client).user_code == code

    callback = browser_login(login_url, email)
    assert callback.status_code == 200 and is_html(callback), describe(callback)

    line = device.wait_for_line(lambda line: REALM_PATH.search(line) is not None, "realm path")
    realm_path = REALM_PATH.search(line).group(0)
    result = server.mark_initialized(realm_path)
    assert result.returncode == 0, cli_output(result)

    code = device.wait_exit()
    assert code == 0, f"onboard exited with {code}\n{device.output()}"
    assert realm_path in "\n".join(device.lines)
    # It ends with what to do next: call the API as the device.
    assert any(line.startswith("Onboarded. Next:") and f"{server.public_url}/me" in line for line in device.lines), device.output()
    # Its tokens were in memory only: it says that the next run is another device, and how to keep one.
    assert any("each run without --token-file is another device" in line for line in device.lines), device.output()


@pytest.fixture(scope="module")
def binding_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    """`dpop.bind_access_tokens: true`, as `make run`'s configuration has it."""
    server = start_server(fieldpass_bin, idp, tmp_path_factory.mktemp("server-dpop-binding"), {"DPOP_BIND_ACCESS_TOKENS": "true"})
    try:
        yield server
    finally:
        server.stop()


def test_onboard_with_dpop_shows_a_token_bound_to_its_key(
    binding_server: FieldpassServer, email: str, onboard, tmp_path: Path
) -> None:
    key_file = tmp_path / "device-key.pem"
    device = onboard("--dpop-key", str(key_file), on=binding_server)
    printed = device.wait_for_line(lambda line: line.startswith(THUMBPRINT_PREFIX), "'DPoP key thumbprint: ' line")
    thumbprint = printed[len(THUMBPRINT_PREFIX) :].strip()
    # The key the CLI kept, read back independently: a P-256 private key, mode 0600, whose
    # RFC 7638 thumbprint is the one printed.
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert pem_key_thumbprint(key_file) == thumbprint, device.output()

    url = device.wait_for_line(lambda line: line.startswith(LOGIN_PREFIX), "'Login URL: ' line")
    callback = browser_login(url[len(LOGIN_PREFIX) :].strip(), email)
    assert callback.status_code == 200 and is_html(callback), describe(callback)
    line = device.wait_for_line(lambda line: REALM_PATH.search(line) is not None, "realm path")
    assert binding_server.mark_initialized(REALM_PATH.search(line).group(0)).returncode == 0
    assert device.wait_exit() == 0, device.output()
    # The claims it printed, verified against the JWKS: the access token is bound to that key.
    claims = "\n".join(device.lines)
    assert re.search(r'"cnf"\s*:\s*\{\s*"jkt"\s*:\s*"' + re.escape(thumbprint) + '"', claims), device.output()
    # What it suggests next works with a bound token: no bearer curl, which /me would refuse.
    next_step = claims[claims.index("Onboarded. Next:"):]
    assert "Bearer" not in next_step and '"Authorization: DPoP TOKEN"' in next_step, device.output()


def test_onboard_with_dpop_refuses_to_keep_tokens_whose_key_it_forgets(server: FieldpassServer, email: str, tmp_path: Path) -> None:
    result = server.cli("onboard", email, "--server", server.public_url, "--dpop", "--token-file", str(tmp_path / "tokens.json"))
    assert result.returncode != 0 and "--dpop-key" in result.stderr, cli_output(result)
    assert not (tmp_path / "tokens.json").exists()


def test_onboard_command_fails_when_login_is_denied(
    server: FieldpassServer, email: str, onboard
) -> None:
    device = onboard()
    url = device.wait_for_line(lambda line: line.startswith(LOGIN_PREFIX), "'Login URL: ' line")
    browser_login(url[len(LOGIN_PREFIX) :].strip(), email, deny=True)
    code = device.wait_exit()
    assert code != 0, f"onboard exited 0 after a denied login\n{device.output()}"


def test_mark_initialized_unknown_realm_fails(server: FieldpassServer) -> None:
    result = server.mark_initialized(f"/users/{uuid.uuid4()}")
    assert result.returncode != 0, cli_output(result)
    assert (result.stdout + result.stderr).strip(), "no message for an unknown realm"


@pytest.mark.parametrize(
    ("args", "key_type"),
    [((), ec.EllipticCurvePrivateKey), (("--alg", "RS256"), rsa.RSAPrivateKey)],
    ids=["default-ES256", "RS256"],
)
def test_keys_generate_writes_private_pem(
    fieldpass_bin: Path, idp, tmp_path: Path, args: tuple[str, ...], key_type: type
) -> None:
    server = server_in(tmp_path, fieldpass_bin, idp, clean_env())
    server.keys_dir.mkdir()
    server.write_config()
    result = server.cli("keys", "generate", *args, "--config", str(server.config_path))
    assert result.returncode == 0, cli_output(result)

    pems = list(server.keys_dir.glob("*.pem"))
    assert len(pems) == 1, f"expected one new PEM in {server.keys_dir}, found {pems}"
    key = load_pem_private_key(pems[0].read_bytes(), password=None)
    assert isinstance(key, key_type), type(key)
    if isinstance(key, ec.EllipticCurvePrivateKey):
        assert key.curve.name == "secp256r1"
    else:
        assert key.key_size >= 2048
    mode = pems[0].stat().st_mode & 0o777
    assert mode & 0o077 == 0, f"private key file is readable by others: {oct(mode)}"
