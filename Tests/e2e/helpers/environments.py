"""The environments of a generated config (email domains, bootstrap admins, service
accounts), the two of `directory_server`, and unique email addresses."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .settings import EMAIL_DOMAIN


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
    # The `roles_from_idp` and `teams_from_idp` sections, e.g. {"claim": "roles", "map": {...}}.
    roles_from_idp: Mapping[str, Any] | None = None
    teams_from_idp: Mapping[str, Any] | None = None
    # SCIM provisioning: the token's variable and the token, put into the server's environment.
    scim_token_env: str | None = None
    scim_token: str | None = None
    # `app_redirect_uris`: where a sign-in may send the browser back to the app, matched exactly.
    app_redirect_uris: tuple[str, ...] = ()
    # `badges.managers_issue`: managers issue their teams' workers' badges and reset their PINs.
    managers_issue_badges: bool = False
    # `name`: the company's name as people read it (badge cards); None: the id.
    name: str | None = None


# Two environments on the same mock IdP, with bootstrap admins and service accounts.
ADMIN_EMAIL = f"admin@{EMAIL_DOMAIN}"
OTHER_ENV = "other"
OTHER_DOMAIN = "other.test"
OTHER_ADMIN_EMAIL = f"admin@{OTHER_DOMAIN}"
DEV_BACKEND = ServiceAccountSpec("backend", "DEV_BACKEND_SECRET", "dev-backend-e2e-secret-long-enough-to-count")
OTHER_BACKEND = ServiceAccountSpec("other-backend", "OTHER_BACKEND_SECRET", "other-backend-e2e-secret-long-enough-to-count")
DIRECTORY_ENVIRONMENTS = (
    EnvironmentSpec("dev", (EMAIL_DOMAIN,), (ADMIN_EMAIL,), (DEV_BACKEND,)),
    EnvironmentSpec(OTHER_ENV, (OTHER_DOMAIN,), (OTHER_ADMIN_EMAIL,), (OTHER_BACKEND,)),
)


def unique_email(prefix: str = "worker", domain: str = EMAIL_DOMAIN) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}@{domain}"
