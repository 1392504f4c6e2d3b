"""A company's backend integration as a plain HTTP client of the integration API."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

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
