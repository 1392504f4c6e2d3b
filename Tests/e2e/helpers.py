"""Helpers for the Fieldpass end-to-end tests.

Everything here talks to real processes: the `fieldpass` binary and the
oidc-provider-mock IdP, over loopback only. Every wait has a timeout so that a
hang fails fast instead of stalling the suite.
"""

from __future__ import annotations

import base64
import ctypes
import functools
import hashlib
import json
import os
import re
import signal
import socket
import sqlite3
import ssl
import subprocess
import time
import uuid
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx
import jwt
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

HTTP_TIMEOUT = 10.0
EVENT_TIMEOUT = 10.0
STARTUP_TIMEOUT = 30.0
CLI_TIMEOUT = 30.0

AUDIENCE = "realm-sync"
ACCESS_TOKEN_TTL = 900
IDP_CLIENT_ID = "fieldpass"
IDP_CLIENT_SECRET = "e2e-client-secret"
EMAIL_DOMAIN = "example.com"
DB_TABLES = ("users", "devices", "sessions", "session_events", "realms")
# What the directory (roles, teams, grants, audit) and the integration API may change.
DIRECTORY_TABLES = (
    "users", "realms", "teams", "team_members", "realm_grants", "audit_log", "refresh_tokens",
)

# Configuration keys can be overridden from the environment; variables with these
# prefixes are dropped from what the test processes inherit so that the CI
# environment cannot change the configuration under test.
_CONFIG_ENV_PREFIXES = ("SERVER_", "STORAGE_", "TOKENS_", "SESSIONS_", "ENVIRONMENTS_")

# Processes started by the suite, so that a failing test can show their logs.
RUNNING: list[ManagedProcess] = []


# --------------------------------------------------------------------------- basics


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def unique_email(prefix: str = "worker", domain: str = EMAIL_DOMAIN) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}@{domain}"


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Loading the CA bundle costs ~15 ms per client; every client shares this one instead.
    return ssl.create_default_context()


def http_client(**kwargs: Any) -> httpx.Client:
    """An httpx client that never follows redirects and ignores proxy settings."""
    kwargs.setdefault("timeout", HTTP_TIMEOUT)
    kwargs.setdefault("verify", _tls_context())
    kwargs.setdefault("follow_redirects", False)
    return httpx.Client(trust_env=False, **kwargs)


def tail(path: Path, lines: int = 60) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError as error:
        return f"<cannot read {path}: {error}>"
    return "\n".join(text.splitlines()[-lines:])


def is_html(response: httpx.Response) -> bool:
    return response.headers.get("content-type", "").lower().startswith("text/html")


def describe(response: httpx.Response) -> str:
    body = response.text
    if len(body) > 500:
        body = body[:500] + "..."
    return (
        f"{response.request.method} {response.request.url} -> {response.status_code} "
        f"[{response.headers.get('content-type')}] {body!r}"
    )


def _die_with_parent() -> None:
    """Ask Linux to SIGTERM the child if the test runner dies without cleaning up."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(_CONFIG_ENV_PREFIXES)
    }
    env["DEV_IDP_CLIENT_SECRET"] = IDP_CLIENT_SECRET
    env.setdefault("NO_COLOR", "1")
    if extra:
        env.update(extra)
    return env


# --------------------------------------------------------------------------- processes


@dataclass
class ManagedProcess:
    name: str
    proc: subprocess.Popen[bytes]
    stdout_path: Path
    stderr_path: Path

    def log_tail(self, lines: int = 60) -> str:
        out = tail(self.stdout_path, lines)
        err = tail(self.stderr_path, lines)
        status = self.proc.poll()
        state = "running" if status is None else f"exited with status {status}"
        parts = [f"--- {self.name} ({state}) stderr ({self.stderr_path}) ---", err]
        if out.strip():
            parts += [f"--- {self.name} stdout ({self.stdout_path}) ---", out]
        return "\n".join(parts)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL (with a warning) if it has not exited after `timeout`."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
                warnings.warn(
                    f"{self.name} ignored SIGTERM for {timeout:.0f} s and was killed\n"
                    f"{self.log_tail(15)}",
                    stacklevel=2,
                )
        if self in RUNNING:
            RUNNING.remove(self)
        return self.proc.returncode


def start_process(
    name: str, argv: Sequence[str], log_dir: Path, env: Mapping[str, str]
) -> ManagedProcess:
    log_dir.mkdir(parents=True, exist_ok=True)
    stdout_path = log_dir / f"{name}.stdout.log"
    stderr_path = log_dir / f"{name}.stderr.log"
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=dict(env),
            preexec_fn=_die_with_parent,
        )
    managed = ManagedProcess(name, proc, stdout_path, stderr_path)
    RUNNING.append(managed)
    return managed


def wait_until_http_ok(url: str, process: ManagedProcess, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last = "no attempt"
    with http_client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if not process.alive():
                process.stop()
                pytest.fail(
                    f"{process.name} exited with status {process.proc.returncode} "
                    f"before {url} answered\n{process.log_tail()}"
                )
            try:
                response = client.get(url)
                if response.status_code == 200:
                    return
                last = f"status {response.status_code}"
            except httpx.TransportError as error:
                last = repr(error)
            time.sleep(0.1)
    process.stop()
    pytest.fail(f"{url} not ready after {timeout:.0f} s ({last})\n{process.log_tail()}")


# --------------------------------------------------------------------------- the IdP


@dataclass
class MockIdP:
    process: ManagedProcess
    port: int

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def set_user(self, sub: str, claims: Mapping[str, Any]) -> None:
        with http_client() as client:
            response = client.put(f"{self.issuer}/users/{sub}", json=dict(claims))
        assert response.status_code == 204, describe(response)

    def stop(self) -> None:
        self.process.stop()


def start_idp(python: str, log_dir: Path) -> MockIdP:
    port = free_port()
    process = start_process(
        "idp",
        [python, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(port)],
        log_dir,
        clean_env(),
    )
    idp = MockIdP(process, port)
    wait_until_http_ok(
        f"{idp.issuer}/.well-known/openid-configuration", process, STARTUP_TIMEOUT
    )
    return idp


# --------------------------------------------------------------------------- the server


@dataclass(frozen=True)
class ServiceAccountSpec:
    """A backend integration's credentials: the secret is put into the server's environment."""

    id: str
    secret_env: str
    secret: str


@dataclass(frozen=True)
class EnvironmentSpec:
    """One `environments[]` entry of the generated config; every one uses the mock IdP."""

    id: str
    email_domains: tuple[str, ...]
    bootstrap_admins: tuple[str, ...] = ()
    service_accounts: tuple[ServiceAccountSpec, ...] = ()



@dataclass
class Registration:
    email: str
    device: dict[str, Any] | None
    session_id: str
    login_url: str
    websocket_url: str
    expires_in: int
    user_code: str
    body: dict[str, Any]


@dataclass
class FieldpassServer:
    binary: Path
    workdir: Path
    port: int
    config_path: Path
    sqlite_path: Path
    keys_dir: Path
    env: dict[str, str]
    idp: MockIdP
    process: ManagedProcess | None = None
    # None: the single `dev` environment of example.com, without admins or service accounts.
    environments: tuple[EnvironmentSpec, ...] | None = None
    # None: no `roles:` key (the built-in role table).
    roles: Mapping[str, Sequence[str]] | None = None

    @property
    def public_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def callback_url(self) -> str:
        return f"{self.public_url}/auth_callback"

    # ---- lifecycle

    def _environment_lines(self) -> list[str]:
        q = json.dumps  # JSON strings and lists are valid YAML flow values
        idp = [
            "    idp:",
            f"      issuer: {q(self.idp.issuer)}",
            f"      client_id: {IDP_CLIENT_ID}",
            "      client_secret_env: DEV_IDP_CLIENT_SECRET",
            "      scopes: [openid, email, profile]",
        ]
        if self.environments is None:
            return ["  - id: dev", f"    email_domains: [{EMAIL_DOMAIN}]", *idp]
        lines: list[str] = []
        for environment in self.environments:
            lines += [f"  - id: {environment.id}", f"    email_domains: {q(list(environment.email_domains))}"]
            if environment.bootstrap_admins:
                lines.append(f"    bootstrap_admins: {q(list(environment.bootstrap_admins))}")
            if environment.service_accounts:
                lines.append("    service_accounts:")
                for account in environment.service_accounts:
                    lines += [f"      - id: {q(account.id)}", f"        secret_env: {account.secret_env}"]
            lines += idp
        return lines

    def _roles_lines(self) -> list[str]:
        if self.roles is None:
            return []
        return ["roles:"] + [f"  {role}: {json.dumps(list(rules))}" for role, rules in self.roles.items()]

    def service_account(self, account_id: str) -> ServiceAccountSpec:
        for environment in self.environments or ():
            for account in environment.service_accounts:
                if account.id == account_id:
                    return account
        raise KeyError(f"no service account {account_id!r} in this server's config")

    def write_config(self) -> None:
        q = json.dumps  # JSON strings are valid YAML scalars
        self.config_path.write_text(
            "\n".join(
                [
                    "server:",
                    "  host: 127.0.0.1",
                    f"  port: {self.port}",
                    f"  public_url: {q(self.public_url)}",
                    "storage:",
                    f"  sqlite_path: {q(str(self.sqlite_path))}",
                    "tokens:",
                    f"  keys_dir: {q(str(self.keys_dir))}",
                    f"  audience: {AUDIENCE}",
                    f"  access_token_ttl: {ACCESS_TOKEN_TTL}",
                    "sessions:",
                    "  ttl: 600",
                    "  sweep_interval: 5",
                    "environments:",
                    *self._environment_lines(),
                    *self._roles_lines(),
                    "",
                ]
            )
        )

    def start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.keys_dir.mkdir(parents=True, exist_ok=True)
        self.write_config()
        result = self.cli("keys", "generate", "--config", str(self.config_path))
        assert result.returncode == 0, f"keys generate failed:\n{cli_output(result)}"
        pems = sorted(self.keys_dir.glob("*.pem"))
        assert pems, f"keys generate wrote no *.pem into {self.keys_dir}:\n{cli_output(result)}"
        self.process = start_process(
            f"fieldpass-{self.port}",
            [str(self.binary), "serve", "--config", str(self.config_path)],
            self.workdir,
            self.env,
        )
        wait_until_http_ok(f"{self.public_url}/healthz", self.process, STARTUP_TIMEOUT)

    def stop(self) -> int | None:
        return self.process.stop() if self.process else None

    def log_tail(self) -> str:
        return self.process.log_tail() if self.process else "<not started>"

    # ---- CLI

    def cli(self, *args: str, timeout: float = CLI_TIMEOUT) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(
                [str(self.binary), *args],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                env=self.env,
                timeout=timeout,
                preexec_fn=_die_with_parent,
            )
        except subprocess.TimeoutExpired as error:
            pytest.fail(f"fieldpass {' '.join(args)} did not finish in {timeout} s: {error}")

    def mark_initialized(self, realm_path: str) -> subprocess.CompletedProcess[str]:
        return self.cli(
            "realms", "mark-initialized", realm_path, "--config", str(self.config_path)
        )

    def grant_role(self, email: str, role: str, env: str = "dev") -> subprocess.CompletedProcess[str]:
        """`fieldpass admin grant-role` against this server's config (and so its database)."""
        return self.cli(
            "admin", "grant-role", email, role, "--env", env, "--config", str(self.config_path)
        )

    # ---- HTTP

    def post_register(
        self,
        body: Any = None,
        *,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        if content is None:
            content = json.dumps(body).encode()
        all_headers = {"content-type": "application/json", **(headers or {})}
        with http_client() as client:
            return client.post(
                f"{self.public_url}/register_device", content=content, headers=all_headers
            )

    def register(self, email: str, device: Mapping[str, Any] | None = None, *, email_only: bool = False) -> Registration:
        """`POST /register_device`; `email_only` posts the email alone, as the seed app does."""
        sent = None if email_only else dict(device or {"name": "Pixel 8", "platform": "android"})
        response = self.post_register({"email": email} if sent is None else {"email": email, "device": sent})
        assert response.status_code == 201, describe(response)
        body = response.json()
        for key in ("session_id", "login_url", "websocket_url", "expires_in", "user_code"):
            assert key in body, f"register_device response lacks {key!r}: {body}"
        return Registration(
            email=email,
            device=sent,
            session_id=body["session_id"],
            login_url=body["login_url"],
            websocket_url=body["websocket_url"],
            expires_in=body["expires_in"],
            user_code=body["user_code"],
            body=body,
        )

    def get(self, path_and_query: str) -> httpx.Response:
        with http_client() as client:
            return client.get(f"{self.public_url}{path_and_query}")

    def api(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json_body: Any = None,
        content: bytes | None = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = HTTP_TIMEOUT,
    ) -> httpx.Response:
        """One request; `token` goes into `Authorization: Bearer`, `json_body` is sent as JSON."""
        all_headers = dict(headers or {})
        if token is not None:
            all_headers.setdefault("authorization", f"Bearer {token}")
        if json_body is not None:
            assert content is None, "json_body or content, not both"
            content = json.dumps(json_body).encode()
            all_headers.setdefault("content-type", "application/json")
        with http_client(timeout=timeout) as client:
            return client.request(
                method, f"{self.public_url}{path}", content=content, params=params, headers=all_headers
            )

    def post_token(
        self, form: Mapping[str, str], *, auth: tuple[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """`POST /token`, form-encoded; `auth` is HTTP Basic client authentication."""
        with http_client() as client:
            return client.post(f"{self.public_url}/token", data=dict(form), auth=auth, headers=headers)

    def refresh(self, refresh_token: str) -> httpx.Response:
        return self.post_token({"grant_type": "refresh_token", "refresh_token": refresh_token})

    def jwks(self) -> dict[str, Any]:
        with http_client() as client:
            response = client.get(f"{self.public_url}/.well-known/jwks.json")
        assert response.status_code == 200, describe(response)
        return response.json()

    def verify_access_token(self, token: str) -> dict[str, Any]:
        return verify_jwt(token, self.jwks(), issuer=self.public_url, audience=AUDIENCE)

    # ---- storage (read-only)

    def _connect_ro(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.sqlite_path}?mode=ro", uri=True, timeout=5)

    def row_counts(self, tables: Sequence[str] = DB_TABLES) -> dict[str, int]:
        conn = self._connect_ro()
        try:
            return {
                table: conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
                for table in tables
            }
        finally:
            conn.close()

    def snapshot(self, tables: Sequence[str] = DIRECTORY_TABLES) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of `tables`, sorted: equal snapshots mean nothing in them changed."""
        conn = self._connect_ro()
        try:
            return {
                table: sorted(conn.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
                for table in tables
            }
        finally:
            conn.close()

    def query(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        """A read-only query of the server's database."""
        conn = self._connect_ro()
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def tables_containing(self, needle: str) -> list[str]:
        """Names of tables where some cell contains `needle` (text or blob)."""
        conn = self._connect_ro()
        found = []
        try:
            tables = [
                row[0]
                for row in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                )
            ]
            for table in tables:
                for row in conn.execute(f'SELECT * FROM "{table}"'):
                    if any(_cell_contains(cell, needle) for cell in row):
                        found.append(table)
                        break
        finally:
            conn.close()
        return found


def _cell_contains(cell: Any, needle: str) -> bool:
    if isinstance(cell, str):
        return needle in cell
    if isinstance(cell, bytes):
        return needle.encode() in cell
    return False


def cli_output(result: subprocess.CompletedProcess[str]) -> str:
    return (
        f"exit status {result.returncode}\n--- stdout ---\n{result.stdout}"
        f"\n--- stderr ---\n{result.stderr}"
    )


# Two environments on the same mock IdP, with bootstrap admins and service accounts.
ADMIN_EMAIL = f"admin@{EMAIL_DOMAIN}"
OTHER_ENV = "other"
OTHER_DOMAIN = "other.test"
OTHER_ADMIN_EMAIL = f"admin@{OTHER_DOMAIN}"
DEV_BACKEND = ServiceAccountSpec("backend", "DEV_BACKEND_SECRET", "dev-backend-e2e-secret")
OTHER_BACKEND = ServiceAccountSpec("other-backend", "OTHER_BACKEND_SECRET", "other-backend-e2e-secret")
DIRECTORY_ENVIRONMENTS = (
    EnvironmentSpec("dev", (EMAIL_DOMAIN,), (ADMIN_EMAIL,), (DEV_BACKEND,)),
    EnvironmentSpec(OTHER_ENV, (OTHER_DOMAIN,), (OTHER_ADMIN_EMAIL,), (OTHER_BACKEND,)),
)


def start_server(
    binary: Path, idp: MockIdP, workdir: Path, extra_env: Mapping[str, str] | None = None,
    *,
    environments: Sequence[EnvironmentSpec] | None = None,
    roles: Mapping[str, Sequence[str]] | None = None,
) -> FieldpassServer:
    env = clean_env(extra_env)
    for environment in environments or ():
        for account in environment.service_accounts:
            env[account.secret_env] = account.secret
    server = server_in(workdir, binary, idp, env, environments=environments, roles=roles)
    server.start()
    return server


def server_in(
    workdir: Path, binary: Path, idp: MockIdP, env: dict[str, str],
    *,
    environments: Sequence[EnvironmentSpec] | None = None,
    roles: Mapping[str, Sequence[str]] | None = None,
) -> FieldpassServer:
    """A server whose config, database and keys live in `workdir` (not started)."""
    return FieldpassServer(
        binary=binary,
        workdir=workdir,
        port=free_port(),
        config_path=workdir / "fieldpass.yaml",
        sqlite_path=workdir / "fieldpass.sqlite",
        keys_dir=workdir / "keys",
        env=env,
        idp=idp,
        environments=tuple(environments) if environments is not None else None,
        roles=roles,
    )


# --------------------------------------------------------------------------- tokens


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
    token: str, jwks: Mapping[str, Any], *, issuer: str, audience: str
) -> dict[str, Any]:
    """Verify like a sync server would: our JWKS alone, ES256 only, all claims checked."""
    header = jwt.get_unverified_header(token)
    kid = header.get("kid")
    keys = jwt.PyJWKSet.from_dict(dict(jwks))
    key = keys[kid]  # raises KeyError for an unknown kid
    return jwt.decode(
        token,
        key.key,
        algorithms=["ES256"],
        issuer=issuer,
        audience=audience,
        leeway=5,
        options={"require": ["exp", "iat", "nbf", "iss", "aud", "sub", "jti"]},
    )


# --------------------------------------------------------------------------- the browser


def login_params(login_url: str) -> dict[str, str]:
    query = parse_qs(urlsplit(login_url).query, keep_blank_values=True)
    return {key: values[0] for key, values in query.items()}


def _with_query(url: str, extra: Mapping[str, str]) -> str:
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    for key, value in extra.items():
        query[key] = [value]
    return urlunsplit(parts._replace(query=urlencode(query, doseq=True)))


def is_confirmation_url(login_url: str) -> bool:
    """Whether `login_url` is Fieldpass's device confirmation page (not the IdP itself)."""
    return urlsplit(login_url).path.startswith("/login/")


_CSRF_FIELD = re.compile(r'<input type="hidden" name="csrf_token" value="([^"]+)"')
_USER_CODE = re.compile(r'<p class="code">([A-Z]{4}-[A-Z]{4})</p>')


@dataclass
class ConfirmationPage:
    """What a browser got from `GET login_url`: the page, its form field and its cookies."""

    response: httpx.Response
    client: httpx.Client

    @property
    def csrf_token(self) -> str:
        match = _CSRF_FIELD.search(self.response.text)
        assert match, f"no csrf_token field on the page: {describe(self.response)}"
        return match.group(1)

    @property
    def user_code(self) -> str:
        match = _USER_CODE.search(self.response.text)
        assert match, f"no user code on the page: {describe(self.response)}"
        return match.group(1)

    def submit(self, form: Mapping[str, str] | None = None) -> httpx.Response:
        """POST the page's form back as a browser would (with its cookie); `form` replaces the fields."""
        fields = {"csrf_token": self.csrf_token} if form is None else dict(form)
        return self.client.post(str(self.response.request.url), data=fields)


def open_confirmation(login_url: str, client: httpx.Client) -> ConfirmationPage:
    response = client.get(login_url)
    assert response.status_code == 200 and is_html(response), describe(response)
    return ConfirmationPage(response, client)


def authorize_url(login_url: str) -> str:
    """The IdP authorization URL behind `login_url`: through the confirmation page when there
    is one (GET, then POST its form as a browser would), else `login_url` itself."""
    if not is_confirmation_url(login_url):
        return login_url
    with http_client() as client:
        page = open_confirmation(login_url, client)
        response = page.submit()
    assert response.status_code == 303, describe(response)
    return response.headers["location"]


def idp_redirect(
    login_url: str, sub: str, *, deny: bool = False, idp: MockIdP | None = None,
    claims: Mapping[str, Any] | None = None,
) -> str:
    """Confirm the device if needed, sign in (or refuse) at the IdP; returns the Location
    the IdP redirects the browser to.

    The mock IdP's user `sub` has the email claim `sub` unless `claims` (with `idp`)
    sets its claims first.

    oidc-provider-mock 0.3.4 leaves `state` out of its access_denied redirect, which
    RFC 6749 section 4.1.2.1 requires; like a conforming IdP, the helper puts the
    request's state back in.
    """
    if claims is not None:
        assert idp is not None, "claims need the idp to set them on"
        idp.set_user(sub, claims)
    idp_url = authorize_url(login_url)
    form = {"action": "deny"} if deny else {"sub": sub}
    with http_client() as client:
        response = client.post(idp_url, data=form)
    assert response.status_code == 302, f"IdP did not redirect: {describe(response)}"
    location = response.headers["location"]
    params = login_params(location)
    state = login_params(idp_url).get("state")
    if "error" in params and "state" not in params and state is not None:
        location = _with_query(location, {"state": state})
    return location


def browser_login(
    login_url: str, sub: str, deny: bool = False, *, idp: MockIdP | None = None,
    claims: Mapping[str, Any] | None = None,
) -> httpx.Response:
    """Play the browser: confirm the device, sign in at the IdP as `sub` (or deny), then
    follow the redirect to our /auth_callback. Returns the callback's response; its URL is
    `response.request.url`."""
    location = idp_redirect(login_url, sub, deny=deny, idp=idp, claims=claims)
    assert urlsplit(location).path.endswith("/auth_callback"), location
    with http_client() as client:
        return client.get(location)


# --------------------------------------------------------------------------- websockets


@dataclass
class Received:
    events: list[dict[str, Any]]
    closed: bool
    close_code: int | None

    @property
    def types(self) -> list[str]:
        return [event.get("type") for event in self.events]

    @property
    def seqs(self) -> list[int]:
        return [event.get("seq") for event in self.events]


def ws_connect(url: str) -> ClientConnection:
    return connect(url, open_timeout=HTTP_TIMEOUT, close_timeout=5, proxy=None)


def _parse(message: str | bytes) -> dict[str, Any]:
    assert isinstance(message, str), f"expected a text frame, got binary {message!r}"
    event = json.loads(message)
    assert isinstance(event, dict), f"event is not a JSON object: {message}"
    return event


def receive(ws: ClientConnection, count: int, timeout: float = EVENT_TIMEOUT) -> list[dict[str, Any]]:
    """Exactly `count` events within `timeout`, else the test fails."""
    events: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while len(events) < count:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise TimeoutError
            events.append(_parse(ws.recv(timeout=remaining)))
        except TimeoutError:
            pytest.fail(f"got {len(events)} of {count} events in {timeout} s: {events}")
        except ConnectionClosed as closed:
            pytest.fail(
                f"socket closed ({closed}) after {len(events)} of {count} events: {events}"
            )
    return events


def receive_until_close(ws: ClientConnection, timeout: float = EVENT_TIMEOUT) -> Received:
    """Every event until the server closes the socket or `timeout` passes."""
    events: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return Received(events, closed=False, close_code=None)
        try:
            events.append(_parse(ws.recv(timeout=remaining)))
        except TimeoutError:
            return Received(events, closed=False, close_code=None)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            return Received(events, closed=True, close_code=code)


def assert_silent(ws: ClientConnection, duration: float) -> None:
    """No event (and no close) arrives within `duration` seconds."""
    got = receive_until_close(ws, timeout=duration)
    assert not got.events and not got.closed, (
        f"expected no event within {duration} s, got {got.events} "
        f"(closed={got.closed}, code={got.close_code})"
    )


def assert_event(event: Mapping[str, Any], seq: int, type_: str) -> None:
    assert event.get("seq") == seq and event.get("type") == type_, (
        f"expected seq={seq} type={type_!r}, got {event}"
    )


# --------------------------------------------------------------------------- flows


@dataclass
class Onboarded:
    registration: Registration
    token_event: dict[str, Any]
    claims: dict[str, Any]
    realm_path: str


def login_and_receive_token(
    ws: ClientConnection, registration: Registration, email: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Sign in at the IdP as `email` and take the token and realm_initialized events."""
    callback = browser_login(registration.login_url, email.lower())
    assert callback.status_code == 200 and is_html(callback), describe(callback)
    token_event, realm_event = receive(ws, 2)
    assert_event(token_event, 1, "token")
    assert_event(realm_event, 2, "realm_initialized")
    return token_event, realm_event


def onboard_to_data_ready(server: FieldpassServer, email: str, device: Mapping[str, Any] | None = None) -> Onboarded:
    """First onboarding of a user: register, socket, login, mark initialized, data_ready."""
    registration = server.register(email, device)
    with ws_connect(registration.websocket_url) as ws:
        token_event, realm_event = login_and_receive_token(ws, registration, email)
        realm_path = realm_event["realm_path"]
        result = server.mark_initialized(realm_path)
        assert result.returncode == 0, cli_output(result)
        rest = receive_until_close(ws)
    assert rest.types == ["data_ready"] and rest.seqs == [3], rest
    assert rest.events[0].get("realm_path") == realm_path, rest.events
    assert rest.closed and rest.close_code == 1000, rest
    claims = server.verify_access_token(token_event["access_token"])
    return Onboarded(registration, token_event, claims, realm_path)


@dataclass
class SignedIn:
    """A device that signed in: its token event, verified claims and personal realm."""

    email: str
    registration: Registration
    token_event: dict[str, Any]
    claims: dict[str, Any]
    realm_path: str

    @property
    def access_token(self) -> str:
        return self.token_event["access_token"]

    @property
    def refresh_token(self) -> str:
        return self.token_event["refresh_token"]

    @property
    def user_id(self) -> str:
        return self.claims["sub"]


def sign_in(server: FieldpassServer, email: str, device: Mapping[str, Any] | None = None) -> SignedIn:
    """Register, sign in at the IdP, take the token and realm_initialized events, hang up.

    The session keeps waiting for data_ready (the socket is closed, not the session)."""
    registration = server.register(email, device)
    with ws_connect(registration.websocket_url) as ws:
        token_event, realm_event = login_and_receive_token(ws, registration, email)
    claims = server.verify_access_token(token_event["access_token"])
    assert realm_event.get("realm_path") == f"/users/{claims['sub']}", (realm_event, claims)
    return SignedIn(email, registration, token_event, claims, realm_event["realm_path"])


def assert_api_error(
    response: httpx.Response, status: int, error: str | set[str] | None = None
) -> dict[str, Any]:
    """A JSON error answer: `status`, `{"error": <error>, "error_description": "..."}`."""
    assert response.status_code == status, describe(response)
    assert response.headers.get("content-type", "").startswith("application/json"), describe(response)
    payload = response.json()
    assert isinstance(payload, dict), describe(response)
    code = payload.get("error")
    assert isinstance(code, str) and code, describe(response)
    if isinstance(error, str):
        assert code == error, describe(response)
    elif error is not None:
        assert code in error, describe(response)
    assert isinstance(payload.get("error_description"), str) and payload["error_description"], describe(response)
    return payload


def assert_json(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, describe(response)
    assert response.headers.get("content-type", "").startswith("application/json"), describe(response)
    return response.json()


# --------------------------------------------------------------------------- backend integration


class IntegrationClient:
    """A company's backend integration, as a plain HTTP client would write it.

    It takes a token with client_credentials, follows the realm feed with the cursor the
    server hands out (long-polling with `wait`), and marks realms initialized.
    """

    def __init__(self, base_url: str, client_id: str, secret: str) -> None:
        self.base_url = base_url
        self.client_id = client_id
        self.secret = secret
        self.token: str | None = None
        self.http = http_client()

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> IntegrationClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def authenticate(self) -> dict[str, Any]:
        response = self.http.post(
            f"{self.base_url}/token",
            data={"grant_type": "client_credentials"},
            auth=(self.client_id, self.secret),
        )
        body = assert_json(response)
        assert body.get("token_type") == "Bearer", body
        assert isinstance(body.get("expires_in"), int) and body["expires_in"] > 0, body
        self.token = body["access_token"]
        return body

    def _headers(self) -> dict[str, str]:
        assert self.token is not None, "authenticate() first"
        return {"authorization": f"Bearer {self.token}"}

    def feed_response(
        self, cursor: str | None = None, *, initialized: bool | None = None,
        wait: int | None = None, limit: int | None = None,
    ) -> httpx.Response:
        params: dict[str, str] = {}
        if cursor is not None:
            params["cursor"] = cursor
        if initialized is not None:
            params["initialized"] = "true" if initialized else "false"
        if wait is not None:
            params["wait"] = str(wait)
        if limit is not None:
            params["limit"] = str(limit)
        return self.http.get(
            f"{self.base_url}/integration/realms", params=params, headers=self._headers(),
            timeout=HTTP_TIMEOUT + (wait or 0),
        )

    def feed(self, cursor: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """One page of the feed: `{"realms": [...], "cursor": "..."}`."""
        body = assert_json(self.feed_response(cursor, **kwargs))
        assert isinstance(body.get("realms"), list), body
        assert isinstance(body.get("cursor"), str) and body["cursor"], body
        return body

    def drain(self, cursor: str | None = None, **kwargs: Any) -> tuple[list[dict[str, Any]], str]:
        """Every entry after `cursor` (page by page, no waiting), and the cursor at the end."""
        entries: list[dict[str, Any]] = []
        for _ in range(10_000):
            page = self.feed(cursor, **kwargs)
            cursor = page["cursor"]
            if not page["realms"]:
                return entries, cursor
            entries += page["realms"]
        pytest.fail("the feed did not run dry after 10000 pages")

    def mark_initialized_response(self, realm_path: str) -> httpx.Response:
        return self.http.post(
            f"{self.base_url}/integration/realms/initialized",
            json={"realm_path": realm_path}, headers=self._headers(),
        )

    def mark_initialized(self, realm_path: str) -> dict[str, Any]:
        body = assert_json(self.mark_initialized_response(realm_path))
        assert body.get("realm_path") == realm_path and body.get("initialized") is True, body
        return body
