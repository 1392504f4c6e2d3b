"""The oidc-provider-mock IdP, run as a process on a free loopback port (by
`scripts/mock-idp.py`, which has it answer one request at a time)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .processes import REPO_ROOT, ManagedProcess, clean_env, free_port, start_process, wait_until_http_ok
from .settings import STARTUP_TIMEOUT
from .web import describe, http_client


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
        [python, str(REPO_ROOT / "scripts" / "mock-idp.py"), "--host", "127.0.0.1", "--port", str(port)],
        log_dir,
        clean_env(),
    )
    idp = MockIdP(process, port)
    wait_until_http_ok(
        f"{idp.issuer}/.well-known/openid-configuration", process, STARTUP_TIMEOUT
    )
    return idp
