"""Every key Config/fieldpass.example.yaml names, set, is accepted, and takes effect.

The example file is taken as an operator would: each commented `# key: value` line made a
key, the addresses made this machine's, the IdP the suite's, and some values changed from
their defaults where the change can be seen from outside: the session's and the access
token's lifetimes, the realm prefix, the bootstrap admin, the metrics token, the badge's
PIN length and lifetime. The storage section is the suite's store (the PostgreSQL keys of the
example are accepted only with `driver: postgres`; the Swift tests parse them).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from helpers import (
    IDP_CLIENT_ID, FieldpassServer, MockIdP, SignedIn, http_client, server_env, server_in, sign_in, start_process, wait_until_http_ok,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "Config" / "fieldpass.example.yaml"
SECRET = "s" * 40
SECRETS = {name: SECRET for name in ("ACME_IDP_CLIENT_SECRET", "ACME_BACKEND_SECRET", "ACME_SCIM_TOKEN", "FIELDPASS_METRICS_TOKEN")}
SESSION_TTL, ACCESS_TOKEN_TTL, PIN_LENGTH, BADGE_LIFETIME = 900, 1200, 12, 86_400
COMMENTED_KEY = re.compile(r"^(\s*)# ([a-z_]+:(\s.*)?)$")
KEY_LINE = re.compile(r"^(\s*)(- )?([a-z_]+):(.*)$")


def every_key(example: str) -> list[str]:
    """The example's lines with each commented key made a key, the storage section left out."""
    lines: list[str] = []
    in_storage = False
    for line in example.splitlines():
        if line.startswith("storage:"):
            in_storage = True
            continue
        if in_storage and (not line or line.startswith((" ", "#"))):
            continue
        in_storage = False
        match = COMMENTED_KEY.match(line)
        lines.append(f"{match.group(1)}{match.group(2)}" if match else line)
    return lines


def with_values(lines: list[str], values: dict[str, str]) -> list[str]:
    """`lines` with the value of each dotted key of `values` replaced (a list item's keys
    are under its id: `environments.acme.idp.issuer`)."""
    path: list[tuple[int, str]] = []
    changed: list[str] = []
    for line in lines:
        match = KEY_LINE.match(line)
        if not match:
            changed.append(line)
            continue
        indent = len(match.group(1)) + (2 if match.group(2) else 0)
        key, rest = match.group(3), match.group(4)
        if match.group(2) and key == "id":
            path = [entry for entry in path if entry[0] < indent - 2] + [(indent - 2, rest.split("#")[0].strip())]
        path = [entry for entry in path if entry[0] < indent]
        dotted = ".".join([name for _, name in path] + [key])
        if dotted in values:
            line = f"{match.group(1)}{match.group(2) or ''}{key}: {values[dotted]}"
        changed.append(line)
        if not rest.split("#")[0].strip():
            path.append((indent, key))
    return changed


@pytest.fixture(scope="module")
def example_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    server = server_in(tmp_path_factory.mktemp("example-config"), fieldpass_bin, idp, server_env(SECRETS, None))
    server.generate_key()
    q = json.dumps
    lines = with_values(every_key(EXAMPLE.read_text()), {
        "server.host": q(server.host), "server.port": str(server.port), "server.public_url": q(server.public_url),
        "server.drain_time": "0", "server.shutdown_timeout": "2", "server.trusted_proxies": "[127.0.0.2/32]",
        "tokens.keys_dir": q(str(server.keys_dir)), "tokens.access_token_ttl": str(ACCESS_TOKEN_TTL), "tokens.key_publish_delay": "0",
        "sessions.ttl": str(SESSION_TTL),
        "badges.pin_length": str(PIN_LENGTH), "badges.lifetime": str(BADGE_LIFETIME),
        "environments.acme.idp.issuer": q(idp.issuer), "environments.acme.idp.client_id": IDP_CLIENT_ID,
    })
    server.config_path.write_text("\n".join([*lines, *server.database.config_lines(), ""]))
    server.process = start_process(
        f"fieldpass-{server.port}", [str(server.binary), "serve", "--config", str(server.config_path)], server.workdir, server.env)
    try:
        wait_until_http_ok(f"{server.url}/healthz", server.process, 60)
        yield server
    finally:
        server.stop()


def signed_in_admin(server: FieldpassServer) -> SignedIn:
    """The example's IT admin, an admin by the IdP's app role, as roles_from_idp maps it."""
    email = "it-admin@acme.example"
    server.idp.set_user(email, {"email": email, "roles": ["Fieldpass.Admin"]})
    return sign_in(server, email)


def test_the_example_names_the_keys_it_is_about_to_set() -> None:
    """The munging above must find what it changes, or the test below proves less than it says."""
    text = "\n".join(every_key(EXAMPLE.read_text()))
    for key in ("pin_length:", "max_shift:", "idle_timeout:", "token_env:", "realm_prefix:", "prefix:", "scim:", "bootstrap_admins:"):
        assert re.search(rf"^\s*{key}", text, re.MULTILINE), key
    assert not re.search(r"^\s*# [a-z_]+:", text, re.MULTILINE), "a commented key was left commented"


def test_the_sessions_and_access_tokens_live_as_set(example_server: FieldpassServer) -> None:
    registration = example_server.register("crew-lead@acme.example")
    assert registration.expires_in == SESSION_TTL, registration.body
    admin = signed_in_admin(example_server)
    assert admin.claims["exp"] - admin.claims["iat"] == ACCESS_TOKEN_TTL, admin.claims
    assert admin.claims["role"] == "admin", "roles_from_idp took effect"
    assert admin.realm_path.startswith("/acme/"), "realm_prefix took effect"


def test_metrics_need_the_token_set(example_server: FieldpassServer) -> None:
    with http_client() as client:
        assert client.get(f"{example_server.url}/metrics").status_code == 401
        scraped = client.get(f"{example_server.url}/metrics", headers={"Authorization": f"Bearer {SECRET}"})
    assert scraped.status_code == 200, scraped.text


def test_badges_have_the_pin_length_and_lifetime_set(example_server: FieldpassServer) -> None:
    admin = signed_in_admin(example_server)
    worker = sign_in(example_server, "crew-member@acme.example")
    issued = example_server.api("POST", f"/admin/users/{worker.user_id}/badge", token=admin.access_token)
    assert issued.status_code == 201, issued.text
    assert re.fullmatch(rf"[0-9]{{{PIN_LENGTH}}}", issued.json()["temporary_pin"]), "pin_length took effect"
    expires_in = datetime.fromisoformat(issued.json()["expires_at"]).timestamp() - time.time()
    assert BADGE_LIFETIME - 120 < expires_in <= BADGE_LIFETIME, issued.json()["expires_at"]
