"""A company's backend integration as a plain HTTP client of the integration API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from .environments import DEV_BACKEND, ServiceAccountSpec
from .settings import HTTP_TIMEOUT
from .web import assert_json, http_client


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
        return drain_pages(lambda after: self.feed(after, **kwargs), "realms", cursor)

    def mark_initialized_response(self, realm_path: str) -> httpx.Response:
        return self.http.post(
            f"{self.base_url}/integration/realms/initialized",
            json={"realm_path": realm_path}, headers=self._headers(),
        )

    def mark_initialized(self, realm_path: str) -> dict[str, Any]:
        body = assert_json(self.mark_initialized_response(realm_path))
        assert body.get("realm_path") == realm_path and body.get("initialized") is True, body
        return body


class EventsReader:
    """The backend's loop over the lifecycle events feed, `/integration/events`, as a plain
    HTTP client writes it, signed in as `account` (the dev backend by default)."""

    def __init__(self, base_url: str, account: ServiceAccountSpec = DEV_BACKEND) -> None:
        self.client = IntegrationClient(base_url, account.id, account.secret)
        self.client.authenticate()

    def close(self) -> None:
        self.client.close()

    def response(self, cursor: str | None = None, *, wait: int | None = None, limit: int | None = None,
                 base_url: str | None = None) -> httpx.Response:
        params = {key: str(value) for key, value in (("cursor", cursor), ("wait", wait), ("limit", limit)) if value is not None}
        return self.client.http.get(
            f"{base_url or self.client.base_url}/integration/events", params=params,
            headers=self.client._headers(), timeout=HTTP_TIMEOUT + (wait or 0),
        )

    def page(self, cursor: str | None = None, **kwargs: Any) -> dict[str, Any]:
        body = assert_json(self.response(cursor, **kwargs))
        assert isinstance(body.get("events"), list) and isinstance(body.get("cursor"), str), body
        for event in body["events"]:
            assert {"cursor", "type", "environment", "actor", "at"} <= set(event), event
        return body

    def drain(self, cursor: str | None = None, **kwargs: Any) -> tuple[list[dict[str, Any]], str]:
        """Every event after `cursor`, page by page, and the cursor at the end."""
        return drain_pages(lambda after: self.page(after, **kwargs), "events", cursor)


def drain_pages(
    page: Callable[[str | None], dict[str, Any]], key: str, cursor: str | None
) -> tuple[list[dict[str, Any]], str]:
    """Every entry of a cursor feed after `cursor`, reading `page` after page until one comes
    back empty, and the cursor at the end."""
    entries: list[dict[str, Any]] = []
    for _ in range(10_000):
        body = page(cursor)
        cursor = body["cursor"]
        if not body[key]:
            return entries, cursor
        entries += body[key]
    pytest.fail(f"the {key} feed did not run dry after 10000 pages")
