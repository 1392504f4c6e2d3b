"""`environments[].realm_prefix`: one sync server for several companies.

`dev` has the prefix `/acme`, `other` has none. Every realm path of `dev` that leaves
Fieldpass (tokens, events, the integration feed and API, the admin API, the CLI) carries the
prefix; paths without it are refused where a `dev` caller names a realm; `other` is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from selenium.webdriver.common.by import By

from console_flows import console_sign_in
from helpers import (
    ADMIN_EMAIL,
    DIRECTORY_ENVIRONMENTS,
    OTHER_ADMIN_EMAIL,
    OTHER_DOMAIN,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    assert_api_error,
    assert_json,
    Registration,
    cli_output,
    login_and_receive_token,
    receive_until_close,
    sign_in,
    start_server,
    unique_email,
    ws_connect,
)
from helpers.audit import audit_entries
from helpers.environments import DEV_BACKEND

PREFIX = "/acme"


@pytest.fixture(scope="module")
def prefixed(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("prefixed"), {"ENVIRONMENTS_DEV_REALM_PREFIX": PREFIX},
        environments=DIRECTORY_ENVIRONMENTS,
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def backend(prefixed: FieldpassServer) -> Iterator[IntegrationClient]:
    client = IntegrationClient(prefixed.public_url, DEV_BACKEND.id, DEV_BACKEND.secret)
    client.authenticate()
    try:
        yield client
    finally:
        client.close()


def test_tokens_and_events_name_the_prefixed_realms(prefixed: FieldpassServer) -> None:
    email = unique_email()
    registration = prefixed.register(email)
    with ws_connect(registration.websocket_url) as ws:
        device = sign_in_on(prefixed, ws, registration)
    user_id = device["claims"]["sub"]

    assert device["realm_event"]["realm_path"] == f"{PREFIX}/users/{user_id}", device["realm_event"]
    realms = device["claims"]["realms"]
    assert realms == {f"{PREFIX}/common": "write", f"{PREFIX}/users/{user_id}": "write"}, realms
    me = assert_json(prefixed.api("GET", "/me", token=device["access_token"]))
    assert me["realms"] == realms, me


def test_another_environment_keeps_plain_paths(prefixed: FieldpassServer) -> None:
    worker = sign_in(prefixed, unique_email(domain=OTHER_DOMAIN))
    assert worker.realm_path == f"/users/{worker.user_id}", worker.realm_path
    assert set(worker.claims["realms"]) == {"/common", f"/users/{worker.user_id}"}, worker.claims


def test_the_backend_sees_and_names_prefixed_realms(prefixed: FieldpassServer, backend: IntegrationClient) -> None:
    service = prefixed.verify_access_token(backend.token)
    assert service["realms"] == {f"{PREFIX}/users/*": "manage"}, service

    email = unique_email()
    registration = prefixed.register(email)
    with ws_connect(registration.websocket_url) as ws:
        device = sign_in_on(prefixed, ws, registration)
        realm = device["realm_event"]["realm_path"]
        entries, _ = backend.drain()
        assert realm in {entry["realm_path"] for entry in entries}, entries
        plain = realm.removeprefix(PREFIX)
        assert_api_error(backend.mark_initialized_response(plain), 400, "invalid_realm_path")
        assert backend.mark_initialized(realm)["devices_notified"] == 1
        rest = receive_until_close(ws)
    assert rest.types == ["data_ready"] and rest.events[0]["realm_path"] == realm, rest


def test_the_cli_takes_the_prefixed_path(prefixed: FieldpassServer) -> None:
    email = unique_email()
    registration = prefixed.register(email)
    with ws_connect(registration.websocket_url) as ws:
        realm = sign_in_on(prefixed, ws, registration)["realm_event"]["realm_path"]
        result = prefixed.mark_initialized(realm)
        assert result.returncode == 0, cli_output(result)
        rest = receive_until_close(ws)
    assert rest.types == ["data_ready"] and rest.events[0]["realm_path"] == realm, rest


def test_admins_grant_under_the_prefix_only(prefixed: FieldpassServer) -> None:
    admin = sign_in(prefixed, ADMIN_EMAIL)
    worker = sign_in(prefixed, unique_email())
    path = f"/admin/users/{worker.user_id}/grants"

    granted = assert_json(prefixed.api("PUT", path, token=admin.access_token, json_body={"realm_path": f"{PREFIX}/tasks", "access": "read"}))
    assert granted["grants"] == {f"{PREFIX}/tasks": "read"}, granted
    assert granted["realms"][f"{PREFIX}/tasks"] == "read", granted
    for outside in ("/tasks", "/globex/tasks", PREFIX, f"{PREFIX}/*"):
        refused = prefixed.api("PUT", path, token=admin.access_token, json_body={"realm_path": outside, "access": "read"})
        assert_api_error(refused, 400, "invalid_realm_path")
    revoked = assert_json(
        prefixed.api("DELETE", path, token=admin.access_token, params={"realm_path": f"{PREFIX}/tasks"})
    )
    assert revoked["grants"] == {}, revoked
    assert set(admin.claims["realms"]) >= {f"{PREFIX}/common", f"{PREFIX}/tasks", f"{PREFIX}/users/*"}, admin.claims


def test_an_environment_without_a_prefix_cannot_grant_the_prefixed_ones_realms(prefixed: FieldpassServer, browsers) -> None:
    """`other` has no prefix and shares the sync server with `dev`'s `/acme`: its admin tries
    to hand one of its workers `dev`'s realms, over the API and through the console's form."""
    admin = sign_in(prefixed, OTHER_ADMIN_EMAIL)
    worker = sign_in(prefixed, unique_email(domain=OTHER_DOMAIN))
    path = f"/admin/users/{worker.user_id}/grants"
    before = audit_entries(prefixed, admin)

    # Other spellings of the prefix too: a sync server on a case-folding file system (or one
    # that folds paths) takes /ACME/common for /acme/common.
    folded = (PREFIX.upper() + "/common", "/Acme/users/*", PREFIX.upper())
    for reaching in (f"{PREFIX}/*", f"{PREFIX}/common", PREFIX, f"{PREFIX}/users/{worker.user_id}", "/*", *folded):
        refused = prefixed.api("PUT", path, token=admin.access_token, json_body={"realm_path": reaching, "access": "manage"})
        assert_api_error(refused, 400, "invalid_realm_path")
        removed = prefixed.api("DELETE", path, token=admin.access_token, params={"realm_path": reaching})
        assert_api_error(removed, 400, "invalid_realm_path")

    browser = browsers()
    console_sign_in(browser, prefixed, OTHER_ADMIN_EMAIL)
    browser.open(f"{prefixed.url}/console/people/{worker.user_id}")
    browser.driver.find_element(By.ID, "grant-path").send_keys(f"{PREFIX}/*")
    browser.press("Add grant")
    assert "realm_path must" in browser.text, browser.describe()

    about_worker = [entry for entry in audit_entries(prefixed, admin) if entry["target"] == f"user:{worker.user_id}"]
    assert about_worker == [entry for entry in before if entry["target"] == f"user:{worker.user_id}"], about_worker
    permissions = assert_json(prefixed.api("GET", f"/admin/users/{worker.user_id}/permissions", token=admin.access_token))
    assert permissions["grants"] == {}, permissions
    refreshed = prefixed.refresh(worker.refresh_token)
    assert refreshed.status_code == 200, refreshed.text
    realms = prefixed.verify_access_token(refreshed.json()["access_token"])["realms"]
    folded_realms = [realm.lower() for realm in realms]
    assert not [realm for realm in folded_realms if realm == PREFIX or realm.startswith(f"{PREFIX}/") or realm == "/*"], realms


def test_the_console_shows_a_teams_realm_as_tokens_carry_it(prefixed: FieldpassServer, browsers) -> None:
    admin = sign_in(prefixed, ADMIN_EMAIL)
    team = assert_json(prefixed.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": f"North {unique_email()[:8]}"}), 201)
    browser = browsers()
    console_sign_in(browser, prefixed, ADMIN_EMAIL)
    browser.open(f"{prefixed.url}/console/teams/{team['id']}")
    realm = browser.driver.find_element(By.XPATH, "//dt[text()='Realm']/following-sibling::dd[1]").text
    assert realm == f"{PREFIX}/teams/{team['id']}", browser.describe()


def sign_in_on(server: FieldpassServer, ws, registration: Registration) -> dict[str, Any]:
    """Sign in for `registration`, whose socket is `ws`: the verified claims and the realm event."""
    token_event, realm_event = login_and_receive_token(ws, registration, registration.email)
    claims = server.verify_access_token(token_event["access_token"])
    return {"claims": claims, "realm_event": realm_event, "access_token": token_event["access_token"]}
