"""The admin audit log, read as an admin's client would: page by page."""

from __future__ import annotations

from typing import Any

import pytest

from .onboarding import SignedIn
from .server import FieldpassServer
from .web import assert_json


def audit_entries(server: FieldpassServer, admin: SignedIn) -> list[dict[str, Any]]:
    """The whole log, newest first, page by page."""
    entries: list[dict[str, Any]] = []
    params = {"limit": "100"}
    for _ in range(1000):
        page = assert_json(server.api("GET", "/admin/audit", token=admin.access_token, params=params))
        entries += page["entries"]
        if "next_before" not in page or page["next_before"] is None:
            return entries
        params = {"limit": "100", "before": str(page["next_before"])}
    pytest.fail("the audit log did not end after 1000 pages")
