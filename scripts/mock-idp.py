"""oidc-provider-mock, the development and test IdP, answering one request at a time.

Run with the venv's Python and the mock's own options (`--host`, `--port`, ...).

The mock keeps its state (users, codes, the recently signed-in subjects) in plain Python
containers without a lock, and uvicorn runs a WSGI app on a pool of threads: two sign-ins at
once can fail inside the mock with "deque mutated during iteration" (its list of recent
subjects is edited by one request while another walks it). A lock around each request makes
the mock a correct IdP under concurrent sign-ins; it answers in a few milliseconds, so taking
requests in turn costs the tests little.
"""

from __future__ import annotations

import sys
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import Any

# Authlib warns that the mock imports its older module, and turns that warning on for good when
# it loads: no error, and nothing to do here, so it is turned off after that.
import authlib.deprecate

warnings.filterwarnings("ignore", category=authlib.deprecate.AuthlibDeprecationWarning)

import oidc_provider_mock.__main__ as mock_main  # noqa: E402

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def one_at_a_time(app: WSGIApp) -> WSGIApp:
    """`app`, with each request handled (its answer's body read too) under one lock."""
    lock = threading.Lock()

    def serialised(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        with lock:
            body = app(environ, start_response)
            try:
                return list(body)
            finally:
                close = getattr(body, "close", None)
                if close is not None:
                    close()

    return serialised


make_app = mock_main.app
mock_main.app = lambda **options: one_at_a_time(make_app(**options))

if __name__ == "__main__":
    sys.argv[0] = "oidc_provider_mock"
    mock_main.run()
