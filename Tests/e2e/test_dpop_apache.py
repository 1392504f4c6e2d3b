"""DPoP-bound access tokens checked by Apache's mod_oauth2 in front of a sync server that reads
only Bearer tokens: Docs/backend.md's recipe, run as written.

The Apache configuration is the block after the `<!-- apache-dpop-config -->` marker of that
page, with its placeholder addresses replaced by this test's Fieldpass and stand-in sync server,
inside a minimal server configuration of the test's own (its own folder, a free loopback port,
`apache2 -X`: one process in the foreground). Debian 12's `libapache2-mod-oauth2` (3.3.1), which
`make deps` installs, must be there: without it the tests fail, they are not skipped.

The device's token comes from Fieldpass with `dpop.bind_access_tokens: true`, and its proofs are
made with `cryptography` and PyJWT as an app would make them. The tests assert what mod_oauth2
does, including what the page says it does not check (`ath`, nonces, a reused `jti`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from helpers import (
    FieldpassServer, ManagedProcess, MockIdP, free_port, http_client, running_server, start_process, ws_connect,
)
from helpers.dpop import DeviceKey, token_hash
from helpers.onboarding import login_and_receive_token
from helpers.settings import AUDIENCE

pytestmark = pytest.mark.store_independent  # what Apache checks, whichever store Fieldpass keeps

BACKEND_DOC = Path(__file__).resolve().parents[2] / "Docs" / "backend.md"
MODULES = Path("/usr/lib/apache2/modules")
# The doc's placeholders, replaced by this test's addresses.
DOC_FIELDPASS = "https://fieldpass.example.com"
DOC_SYNC_SERVER = "http://127.0.0.1:8000"
# What the doc's block needs loaded; Debian's apache2.conf loads the first two itself, and
# `a2enmod oauth2 headers proxy_http allowmethods` the rest.
LOADED_MODULES = ("mpm_prefork", "authn_core", "authz_core", "headers", "proxy", "proxy_http", "allowmethods", "oauth2")
STARTUP_TIMEOUT = 15.0


def documented_config() -> str:
    text = BACKEND_DOC.read_text(encoding="utf-8")
    match = re.search(r"<!-- apache-dpop-config -->\s*```apache\n(.*?)\n```", text, re.DOTALL)
    assert match, "Docs/backend.md has no Apache configuration after its apache-dpop-config marker"
    return match.group(1)


def apache_binary() -> str:
    binary = shutil.which("apache2") or ("/usr/sbin/apache2" if os.access("/usr/sbin/apache2", os.X_OK) else None)
    if binary is None or not (MODULES / "mod_oauth2.so").is_file():
        pytest.fail("apache2 with mod_oauth2 is missing: `make deps` installs Debian's libapache2-mod-oauth2 "
                    "(or apt-get install libapache2-mod-oauth2)")
    return binary


@dataclass
class SyncServerStandIn:
    """Answers 200 to whatever Apache hands on, and keeps the headers that matter of each request."""

    url: str
    seen: list[dict[str, str | None]] = field(default_factory=list)


@pytest.fixture(scope="module")
def sync_server() -> Iterator[SyncServerStandIn]:
    stand_in = SyncServerStandIn(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            stand_in.seen.append({"method": self.command, "path": self.path,
                                  "authorization": self.headers.get("Authorization"),
                                  "dpop": self.headers.get("DPoP")})
            body = b'{"synced": true}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    stand_in.url = f"http://127.0.0.1:{httpd.server_port}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield stand_in
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def bound_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    """`dpop.bind_access_tokens: true`: a proven registration's access tokens are bound to the key."""
    with running_server(fieldpass_bin, idp, tmp_path_factory.mktemp("server-dpop-apache"),
                        {"DPOP_BIND_ACCESS_TOKENS": "true"}) as server:
        yield server


@dataclass
class Apache:
    url: str
    process: ManagedProcess


@pytest.fixture(scope="module")
def apache(
    bound_server: FieldpassServer, sync_server: SyncServerStandIn, tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Apache]:
    binary = apache_binary()
    folder = tmp_path_factory.mktemp("apache")
    port = free_port()
    block = documented_config()
    for placeholder in (DOC_FIELDPASS, DOC_SYNC_SERVER, f"aud:{AUDIENCE}"):
        assert placeholder in block, f"the doc's Apache block no longer has {placeholder!r}"
    block = block.replace(DOC_FIELDPASS, bound_server.public_url).replace(DOC_SYNC_SERVER, sync_server.url)
    # Started as root (as in CI), Apache serves as `nobody`; it refuses to serve as root.
    user = ["User nobody", "Group nogroup"] if os.geteuid() == 0 else []
    config = folder / "apache2.conf"
    config.write_text("\n".join([
        f'ServerRoot "{folder}"',
        "ServerName 127.0.0.1",
        f"Listen 127.0.0.1:{port}",
        f'PidFile "{folder}/apache2.pid"',
        f'DefaultRuntimeDir "{folder}"',
        "ErrorLog /dev/stderr",
        "LogLevel warn",
        *user,
        *(f"LoadModule {name}_module {MODULES}/mod_{name}.so" for name in LOADED_MODULES),
        block,
        "",
    ]))
    syntax = start_process("apache-configtest", [binary, "-t", "-f", str(config)], folder, {"PATH": os.environ["PATH"]})
    assert syntax.proc.wait(STARTUP_TIMEOUT) == 0, f"apache2 -t refused the configuration\n{syntax.log_tail()}"
    syntax.stop()
    process = start_process("apache", [binary, "-X", "-f", str(config)], folder, {"PATH": os.environ["PATH"]})
    server = Apache(f"http://127.0.0.1:{port}", process)
    try:
        wait_for_apache(server)
        yield server
    finally:
        process.stop()


def wait_for_apache(server: Apache) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    with http_client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if not server.process.alive():
                pytest.fail(f"apache2 exited with status {server.process.proc.returncode}\n{server.process.log_tail()}")
            try:
                client.get(f"{server.url}/")  # 404: nothing is served outside the doc's block
                return
            except httpx.TransportError:
                time.sleep(0.05)
    pytest.fail(f"apache2 did not answer within {STARTUP_TIMEOUT:g} s\n{server.process.log_tail()}")


@dataclass
class BoundDevice:
    key: DeviceKey
    access_token: str


@pytest.fixture(scope="module")
def device(bound_server: FieldpassServer) -> BoundDevice:
    """A device whose registration was proven by its key: its access token carries `cnf.jkt`."""
    server = bound_server
    key = DeviceKey()
    email = "dpop-apache@example.com"
    registration = server.register(email, headers={"DPoP": key.proof("POST", f"{server.public_url}/register_device")})
    with ws_connect(registration.websocket_url) as ws:
        token_event, _ = login_and_receive_token(ws, registration, email)
    assert token_event["token_type"] == "DPoP", token_event
    access = token_event["access_token"]
    assert server.verify_access_token(access)["cnf"] == {"jkt": key.thumbprint}
    return BoundDevice(key, access)


def sync_call(apache: Apache, authorization: str, proof: str | None, path: str = "/sync/items",
              method: str = "GET") -> httpx.Response:
    headers = {"Authorization": authorization, **({"DPoP": proof} if proof else {})}
    with http_client() as client:
        return client.request(method, f"{apache.url}{path}", headers=headers)


def assert_refused(response: httpx.Response) -> None:
    """mod_oauth2 refuses with 401 and a Bearer challenge (not RFC 9449's DPoP one), and never
    asks for a nonce."""
    assert response.status_code == 401, (response.status_code, response.text)
    challenge = response.headers.get("WWW-Authenticate", "")
    assert challenge.startswith("Bearer error="), response.headers
    assert "DPoP-Nonce" not in response.headers, response.headers


def test_the_devices_proof_is_accepted_and_the_sync_server_sees_a_bearer_token(
    apache: Apache, device: BoundDevice, sync_server: SyncServerStandIn,
) -> None:
    url = f"{apache.url}/sync/items"
    for method in ("GET", "POST"):
        before = len(sync_server.seen)
        proof = device.key.proof(method, url, ath=token_hash(device.access_token))
        answered = sync_call(apache, f"DPoP {device.access_token}", proof, method=method)
        assert answered.status_code == 200 and answered.json() == {"synced": True}, answered.text
        assert "DPoP-Nonce" not in answered.headers, answered.headers
        assert sync_server.seen[before:] == [{"method": method, "path": "/sync/items",
                                              "authorization": f"Bearer {device.access_token}", "dpop": None}]


def test_without_a_proof_the_bound_token_is_refused(
    apache: Apache, device: BoundDevice, sync_server: SyncServerStandIn,
) -> None:
    before = len(sync_server.seen)
    proof = device.key.proof("GET", f"{apache.url}/sync/items", ath=token_hash(device.access_token))
    assert_refused(sync_call(apache, f"Bearer {device.access_token}", None))
    # As Bearer it is refused even with the device's proof: only `DPoP <token>` counts.
    assert_refused(sync_call(apache, f"Bearer {device.access_token}", proof))
    assert_refused(sync_call(apache, f"DPoP {device.access_token}", None))
    assert sync_server.seen[before:] == []


def test_a_proof_by_another_key_is_refused(apache: Apache, device: BoundDevice, sync_server: SyncServerStandIn) -> None:
    before = len(sync_server.seen)
    thief = DeviceKey()
    assert_refused(sync_call(apache, f"DPoP {device.access_token}",
                             thief.proof("GET", f"{apache.url}/sync/items", ath=token_hash(device.access_token))))
    assert sync_server.seen[before:] == []


def test_a_replayed_proof_is_refused_but_a_new_proof_may_reuse_a_jti(apache: Apache, device: BoundDevice) -> None:
    url = f"{apache.url}/sync/items"
    jti = str(uuid.uuid4())
    proof = device.key.proof("GET", url, ath=token_hash(device.access_token), jti=jti)
    assert sync_call(apache, f"DPoP {device.access_token}", proof).status_code == 200
    assert_refused(sync_call(apache, f"DPoP {device.access_token}", proof))
    # mod_oauth2 3.3.1 remembers the whole proof, not its jti: another proof with the same jti
    # (which only the key's holder can sign) passes.
    again = device.key.proof("GET", url, ath=token_hash(device.access_token), jti=jti)
    assert again != proof
    assert sync_call(apache, f"DPoP {device.access_token}", again).status_code == 200


def test_the_proof_must_name_the_request_and_be_fresh(apache: Apache, device: BoundDevice) -> None:
    url = f"{apache.url}/sync/items"
    ath = token_hash(device.access_token)
    for proof in (device.key.proof("POST", url, ath=ath),                       # another method
                  device.key.proof("GET", f"{apache.url}/sync/other", ath=ath),  # another URL
                  device.key.proof("GET", url, ath=ath, iat=int(time.time()) - 60)):  # a minute old
        assert_refused(sync_call(apache, f"DPoP {device.access_token}", proof))
    # A proof for another server's URL does not pass by naming that server in X-Forwarded-Host:
    # the doc's block removes the header before mod_oauth2 reads it.
    elsewhere = device.key.proof("GET", "https://sync.elsewhere.example/sync/items", ath=ath)
    with http_client() as client:
        forwarded = client.get(url, headers={
            "Authorization": f"DPoP {device.access_token}", "DPoP": elsewhere,
            "X-Forwarded-Host": "sync.elsewhere.example", "X-Forwarded-Proto": "https"})
    assert_refused(forwarded)
    # PATCH would crash mod_oauth2 3.3.1: the block answers 405 before reading the token.
    patch = sync_call(apache, f"DPoP {device.access_token}", device.key.proof("PATCH", url, ath=ath), method="PATCH")
    assert patch.status_code == 405, (patch.status_code, patch.text)
    assert apache.process.alive(), apache.process.log_tail()


def test_what_mod_oauth2_does_not_check_ath_and_nonces(apache: Apache, device: BoundDevice) -> None:
    url = f"{apache.url}/sync/items"
    for proof in (device.key.proof("GET", url),                                   # no ath
                  device.key.proof("GET", url, ath=token_hash("another token")),  # another token's ath
                  device.key.proof("GET", url, ath=token_hash(device.access_token), nonce="never-given")):
        answered = sync_call(apache, f"DPoP {device.access_token}", proof)
        assert answered.status_code == 200, (answered.status_code, answered.text, json.dumps(dict(answered.headers)))
        assert "DPoP-Nonce" not in answered.headers, answered.headers
