"""The `fieldpass` server under test: its generated config, its CLI, its HTTP endpoints
and its database (read-only)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from .database import Database, PostgresDatabase, SQLiteDatabase, fresh_database
from .environments import EnvironmentSpec, ServiceAccountSpec
from .idp import MockIdP
from .processes import (
    ManagedProcess,
    _die_with_parent,
    clean_env,
    cli_output,
    free_port,
    start_process,
    wait_until_http_ok,
)
from .settings import (
    ACCESS_TOKEN_TTL,
    AUDIENCE,
    CLI_TIMEOUT,
    EMAIL_DOMAIN,
    HTTP_TIMEOUT,
    IDP_CLIENT_ID,
    STARTUP_TIMEOUT,
)
from .tokens import verify_jwt
from .web import describe, http_client


@dataclass
class Registration:
    email: str
    device: dict[str, Any] | None
    session_id: str
    login_url: str
    websocket_url: str
    # The same events by HTTP long-poll (GET /events/poll).
    events_url: str
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
    env: dict[str, str] = field(repr=False)  # holds secrets: never shown
    idp: MockIdP
    process: ManagedProcess | None = None
    # None: the single `dev` environment of example.com, without admins or service accounts.
    environments: tuple[EnvironmentSpec, ...] | None = None
    # None: no `roles:` key (the built-in role table).
    roles: Mapping[str, Sequence[str]] | None = None
    # Where the state lives; None: the SQLite file `sqlite_path`.
    database: Database | None = None
    # Whether stop() drops `database` (not when several servers share it).
    owns_database: bool = True
    # None: public_url is this server's own address; else the address every instance
    # shares (the issuer of their tokens).
    shared_public_url: str | None = None
    # The algorithm of the keys generate_key makes (`keys generate --alg`), and the only
    # one verify_access_token accepts.
    key_alg: str = "ES256"
    # None: no `tokens.key_publish_delay` (the built-in 600 s).
    key_publish_delay: int | None = None
    # Options added to `fieldpass serve` (e.g. --log-format json).
    serve_args: tuple[str, ...] = ()
    # `server.drain_time`: 0, so that stop() (SIGTERM) does not wait out the built-in 5 s.
    drain_time: int = 0
    # `server.shutdown_timeout`: 2, so that a connection a test leaves open cannot make stop()
    # wait out the built-in 10 s.
    shutdown_timeout: int = 2
    # None: no `server.idle_timeout` (the built-in 60 s).
    idle_timeout: int | None = None
    # None: `limits.enabled: false`, since the suite registers far faster from one address
    # than any crew; else the `limits:` keys to write (rate limits on), e.g.
    # {"token": {"per_minute": 60, "burst": 5}}.
    limits: Mapping[str, Any] | None = None
    # `server.host`: where it listens, e.g. "::1" for IPv6 loopback.
    host: str = "127.0.0.1"

    def __post_init__(self) -> None:
        if self.database is None:
            self.database = SQLiteDatabase(self.sqlite_path)

    @property
    def url(self) -> str:
        """This process's own address."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def public_url(self) -> str:
        return self.shared_public_url or self.url

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
            if environment.name is not None:
                lines.append(f"    name: {q(environment.name)}")
            if environment.bootstrap_admins:
                lines.append(f"    bootstrap_admins: {q(list(environment.bootstrap_admins))}")
            if environment.service_accounts:
                lines.append("    service_accounts:")
                for account in environment.service_accounts:
                    lines += [f"      - id: {q(account.id)}", f"        secret_env: {account.secret_env}"]
            for key in ("roles_from_idp", "teams_from_idp"):
                section = getattr(environment, key)
                if section is not None:
                    lines.append(f"    {key}: {q(dict(section))}")  # a JSON object is a YAML flow mapping
            if environment.scim_token_env is not None:
                lines.append(f"    scim: {{token_env: {environment.scim_token_env}}}")
            if environment.app_redirect_uris:
                lines.append(f"    app_redirect_uris: {q(list(environment.app_redirect_uris))}")
            if environment.managers_issue_badges:
                lines.append("    badges: {managers_issue: true}")
            lines += idp
        return lines

    def _limits_lines(self) -> list[str]:
        if self.limits is None:
            return ["limits:", "  enabled: false"]
        return ["limits:"] + [f"  {name}: {json.dumps(value)}" for name, value in self.limits.items()]

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
                    f"  host: {q(self.host)}",
                    f"  port: {self.port}",
                    f"  public_url: {q(self.public_url)}",
                    f"  drain_time: {self.drain_time}",
                    f"  shutdown_timeout: {self.shutdown_timeout}",
                    *([f"  idle_timeout: {self.idle_timeout}"] if self.idle_timeout is not None else []),
                    *self.database.config_lines(),
                    "tokens:",
                    f"  keys_dir: {q(str(self.keys_dir))}",
                    f"  audience: {AUDIENCE}",
                    f"  access_token_ttl: {ACCESS_TOKEN_TTL}",
                    *([f"  key_publish_delay: {self.key_publish_delay}"] if self.key_publish_delay is not None else []),
                    "sessions:",
                    "  ttl: 600",
                    "  sweep_interval: 5",
                    *self._limits_lines(),
                    "environments:",
                    *self._environment_lines(),
                    *self._roles_lines(),
                    "",
                ]
            )
        )

    def start(self, *, new_key: bool = True) -> None:
        """Generate a signing key (unless `new_key` is false: keys_dir has one), start
        `fieldpass serve` and wait until it answers."""
        self.launch(new_key=new_key)
        self.wait_ready()

    def launch(self, *, new_key: bool = True) -> None:
        """start() without waiting. From the main thread: the process gets SIGTERM when the
        thread that started it ends (PR_SET_PDEATHSIG)."""
        if new_key:
            self.generate_key()
        else:
            self.workdir.mkdir(parents=True, exist_ok=True)
            self.write_config()
        self.process = start_process(
            f"fieldpass-{self.port}",
            [str(self.binary), "serve", "--config", str(self.config_path), *self.serve_args],
            self.workdir,
            self.env,
        )

    def wait_ready(self) -> None:
        assert self.process is not None, "launch() first"
        wait_until_http_ok(f"{self.url}/healthz", self.process, STARTUP_TIMEOUT)

    def stop(self) -> int | None:
        """Stop the process; drop the database it owns (PostgreSQL), best effort."""
        status = self.process.stop() if self.process else None
        if self.owns_database:
            self.database.drop()
        return status

    def kill(self) -> int | None:
        """SIGKILL the process, as a crash would; the database stays."""
        if self.process is None:
            return None
        self.process.proc.kill()
        return self.process.stop()

    def generate_key(self) -> None:
        """`fieldpass keys generate --alg <key_alg>` into this server's keys_dir (written
        config first)."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.keys_dir.mkdir(parents=True, exist_ok=True)
        self.write_config()
        result = self.cli("keys", "generate", "--alg", self.key_alg, "--config", str(self.config_path))
        assert result.returncode == 0, f"keys generate failed:\n{cli_output(result)}"
        pems = sorted(self.keys_dir.glob("*.pem"))
        assert pems, f"keys generate wrote no *.pem into {self.keys_dir}:\n{cli_output(result)}"

    def log_tail(self) -> str:
        return self.process.log_tail() if self.process else "<not started>"

    def refused_start(self) -> str:
        """`fieldpass serve` with the written config, which must stop at the configuration
        (exit status 1, without the usage text): its stderr."""
        result = self.cli("serve", "--config", str(self.config_path))
        assert result.returncode == 1, result.stderr
        assert "Usage" not in result.stderr + result.stdout
        return result.stderr

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
                f"{self.url}/register_device", content=content, headers=all_headers
            )

    def register(
        self, email: str, device: Mapping[str, Any] | None = None, *, email_only: bool = False,
        app_redirect_uri: str | None = None, app_state: str | None = None, headers: Mapping[str, str] | None = None,
    ) -> Registration:
        """`POST /register_device`; `email_only` posts the email alone, as the seed app does;
        `app_redirect_uri` and `app_state`, when given, are sent as well, and `headers` (a DPoP
        proof, say) with the request."""
        sent = None if email_only else dict(device or {"name": "Pixel 8", "platform": "android"})
        request: dict[str, Any] = {"email": email} if sent is None else {"email": email, "device": sent}
        for key, value in (("app_redirect_uri", app_redirect_uri), ("app_state", app_state)):
            if value is not None:
                request[key] = value
        response = self.post_register(request, headers=headers)
        assert response.status_code == 201, describe(response)
        body = response.json()
        for key in ("session_id", "login_url", "websocket_url", "events_url", "expires_in", "user_code"):
            assert key in body, f"register_device response lacks {key!r}: {body}"
        return Registration(
            email=email,
            device=sent,
            session_id=body["session_id"],
            login_url=body["login_url"],
            websocket_url=body["websocket_url"],
            events_url=body["events_url"],
            expires_in=body["expires_in"],
            user_code=body["user_code"],
            body=body,
        )

    def get(self, path_and_query: str) -> httpx.Response:
        with http_client() as client:
            return client.get(f"{self.url}{path_and_query}")

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
                method, f"{self.url}{path}", content=content, params=params, headers=all_headers
            )

    def post_token(
        self, form: Mapping[str, str], *, auth: tuple[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """`POST /token`, form-encoded; `auth` is HTTP Basic client authentication."""
        with http_client() as client:
            return client.post(f"{self.url}/token", data=dict(form), auth=auth, headers=headers)

    def refresh(self, refresh_token: str) -> httpx.Response:
        return self.post_token({"grant_type": "refresh_token", "refresh_token": refresh_token})

    def jwks(self) -> dict[str, Any]:
        with http_client() as client:
            response = client.get(f"{self.url}/.well-known/jwks.json")
        assert response.status_code == 200, describe(response)
        return response.json()

    def verify_access_token(self, token: str) -> dict[str, Any]:
        return verify_jwt(
            token, self.jwks(), issuer=self.public_url, audience=AUDIENCE, algorithms=[self.key_alg]
        )


def server_env(
    extra_env: Mapping[str, str] | None, environments: Sequence[EnvironmentSpec] | None
) -> dict[str, str]:
    """The environment of a server process: clean, with its service accounts' secrets."""
    env = clean_env(extra_env)
    for environment in environments or ():
        for account in environment.service_accounts:
            env[account.secret_env] = account.secret
        if environment.scim_token_env is not None and environment.scim_token is not None:
            env[environment.scim_token_env] = environment.scim_token
    return env


def start_server(
    binary: Path, idp: MockIdP, workdir: Path, extra_env: Mapping[str, str] | None = None,
    *,
    environments: Sequence[EnvironmentSpec] | None = None,
    roles: Mapping[str, Sequence[str]] | None = None,
    key_alg: str = "ES256",
    limits: Mapping[str, Any] | None = None,
    host: str = "127.0.0.1",
) -> FieldpassServer:
    """A started server in `workdir`, listening on `host`; its signing key is a new
    `key_alg` key; `limits` as FieldpassServer.limits (None: rate limits off)."""
    env = server_env(extra_env, environments)
    server = server_in(workdir, binary, idp, env, environments=environments, roles=roles, key_alg=key_alg)
    server.limits = limits
    server.host = host
    server.start()
    return server


@contextmanager
def running_server(
    binary: Path, idp: MockIdP, workdir: Path, extra_env: Mapping[str, str] | None = None, **options: Any,
) -> Iterator[FieldpassServer]:
    """start_server() for a `with` block (or a fixture): the server is stopped, and its
    database dropped, when the block ends."""
    server = start_server(binary, idp, workdir, extra_env, **options)
    try:
        yield server
    finally:
        server.stop()


def server_in(
    workdir: Path, binary: Path, idp: MockIdP, env: dict[str, str],
    *,
    environments: Sequence[EnvironmentSpec] | None = None,
    roles: Mapping[str, Sequence[str]] | None = None,
    database: Database | None = None,
    key_alg: str = "ES256",
) -> FieldpassServer:
    """A server whose config and keys live in `workdir` (not started). Its state lives in
    `database`, else in a new one of the store the suite runs on (FIELDPASS_E2E_STORE): the
    file `workdir`/fieldpass.sqlite, or a fresh PostgreSQL database that stop() drops. Its
    generated keys are `key_alg` keys."""
    owns_database = database is None
    if database is None:
        database = fresh_database(workdir)
    if isinstance(database, PostgresDatabase) and database.password_env and database.password:
        env.setdefault(database.password_env, database.password)
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
        database=database,
        owns_database=owns_database,
        key_alg=key_alg,
    )
