"""Helpers for the Fieldpass end-to-end tests, one module per concern.

Everything here talks to real processes: the `fieldpass` binary and the
oidc-provider-mock IdP, over loopback only. Every wait has a timeout so that a
hang fails fast instead of stalling the suite. The package re-exports the
public name of its modules: tests import them from `helpers`.
"""

from __future__ import annotations

from .audit import audit_entries
from .browser import (
    ConfirmationPage,
    assert_idp_request,
    authorization_endpoint,
    authorize_url,
    browser_login,
    idp_redirect,
    is_confirmation_url,
    login_params,
    open_confirmation,
)
from .environments import (
    ADMIN_EMAIL,
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    OTHER_ADMIN_EMAIL,
    OTHER_BACKEND,
    OTHER_DOMAIN,
    OTHER_ENV,
    EnvironmentSpec,
    ServiceAccountSpec,
    unique_email,
)
from .idp import MockIdP, start_idp
from .integration import IntegrationClient
from .onboarding import Onboarded, SignedIn, login_and_receive_token, onboard_to_data_ready, sign_in
from .processes import (
    RUNNING,
    ManagedProcess,
    clean_env,
    cli_output,
    free_port,
    start_process,
    tail,
    wait_until_http_ok,
)
from .server import FieldpassServer, Registration, server_in, start_server
from .settings import (
    ACCESS_TOKEN_TTL,
    AUDIENCE,
    CLI_TIMEOUT,
    DB_TABLES,
    DIRECTORY_TABLES,
    EMAIL_DOMAIN,
    EVENT_TIMEOUT,
    HTTP_TIMEOUT,
    IDP_CLIENT_ID,
    IDP_CLIENT_SECRET,
    STARTUP_TIMEOUT,
)
from .sockets import Received, assert_event, assert_silent, receive, receive_until_close, ws_connect
from .tokens import b64url_decode, b64url_encode, jwk_thumbprint, reforge, verify_jwt
from .web import assert_api_error, assert_json, describe, http_client, is_html

__all__ = [
    "ACCESS_TOKEN_TTL",
    "ADMIN_EMAIL",
    "AUDIENCE",
    "CLI_TIMEOUT",
    "DB_TABLES",
    "DEV_BACKEND",
    "DIRECTORY_ENVIRONMENTS",
    "DIRECTORY_TABLES",
    "EMAIL_DOMAIN",
    "EVENT_TIMEOUT",
    "HTTP_TIMEOUT",
    "IDP_CLIENT_ID",
    "IDP_CLIENT_SECRET",
    "OTHER_ADMIN_EMAIL",
    "OTHER_BACKEND",
    "OTHER_DOMAIN",
    "OTHER_ENV",
    "RUNNING",
    "STARTUP_TIMEOUT",
    "ConfirmationPage",
    "assert_idp_request",
    "audit_entries",
    "authorization_endpoint",
    "EnvironmentSpec",
    "FieldpassServer",
    "IntegrationClient",
    "ManagedProcess",
    "MockIdP",
    "Onboarded",
    "Received",
    "Registration",
    "ServiceAccountSpec",
    "SignedIn",
    "assert_api_error",
    "assert_event",
    "assert_json",
    "assert_silent",
    "authorize_url",
    "b64url_decode",
    "b64url_encode",
    "browser_login",
    "clean_env",
    "cli_output",
    "describe",
    "free_port",
    "http_client",
    "idp_redirect",
    "is_confirmation_url",
    "is_html",
    "jwk_thumbprint",
    "login_and_receive_token",
    "login_params",
    "onboard_to_data_ready",
    "open_confirmation",
    "receive",
    "receive_until_close",
    "reforge",
    "server_in",
    "sign_in",
    "start_idp",
    "start_process",
    "start_server",
    "tail",
    "unique_email",
    "verify_jwt",
    "wait_until_http_ok",
    "ws_connect",
]
