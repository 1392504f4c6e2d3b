"""HTTP clients for the tests, and checks of the server's HTTP answers."""

from __future__ import annotations

import functools
import ssl
from typing import Any

import httpx

from .settings import HTTP_TIMEOUT


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


def cookie_attributes(response: httpx.Response, name_prefix: str) -> dict[str, str]:
    """The attributes (lower-case names) of the response's one cookie whose name starts with
    `name_prefix` (the whole name followed by `=`, or the start of a family of names)."""
    cookies = [c for c in response.headers.get_list("set-cookie") if c.startswith(name_prefix)]
    assert len(cookies) == 1, response.headers
    name_value, *attributes = [part.strip() for part in cookies[0].split(";")]
    assert len(name_value.partition("=")[2]) > 0, cookies
    return {key.lower(): value for key, _, value in (a.partition("=") for a in attributes)}


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
