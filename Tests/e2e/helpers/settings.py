"""Timeouts, and the fixed values of the configuration the tests generate."""

from __future__ import annotations

HTTP_TIMEOUT = 10.0
EVENT_TIMEOUT = 10.0
STARTUP_TIMEOUT = 30.0
CLI_TIMEOUT = 30.0

AUDIENCE = "realm-sync"
ACCESS_TOKEN_TTL = 900
IDP_CLIENT_ID = "fieldpass"
IDP_CLIENT_SECRET = "e2e-client-secret"
EMAIL_DOMAIN = "example.com"
