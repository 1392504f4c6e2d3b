"""The backend integration that Docs/backend.md shows, run exactly as written.

The Python block after the `<!-- integration-example -->` marker is extracted from that page
and run as a separate process against a live server: it must find the new user's realm, mark it
initialized, and so release the waiting device with data_ready.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from helpers import (
    DEV_BACKEND,
    FieldpassServer,
    assert_event,
    browser_login,
    receive,
    receive_until_close,
    unique_email,
    ws_connect,
)

README = Path(__file__).resolve().parents[2] / "Docs" / "backend.md"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- integration-example -->\s*```python\n(.*?)\n```", text, re.DOTALL)
    assert match, "Docs/backend.md has no integration example after its marker"
    return match.group(1)


def test_the_readme_integration_releases_a_waiting_device(directory_server: FieldpassServer, tmp_path: Path) -> None:
    script = tmp_path / "integration.py"
    script.write_text(readme_example(), encoding="utf-8")
    email = unique_email()
    registration = directory_server.register(email)
    with ws_connect(registration.websocket_url) as ws:
        browser_login(registration.login_url, email)
        token_event, realm_event = receive(ws, 2)
        assert_event(token_event, 1, "token")
        env = dict(os.environ, FIELDPASS_URL=directory_server.public_url,
                   CLIENT_ID=DEV_BACKEND.id, CLIENT_SECRET=DEV_BACKEND.secret)
        result = subprocess.run([sys.executable, str(script), "--once"], env=env, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"initialized {realm_event['realm_path']}; devices notified: 1" in result.stdout, result.stdout
        rest = receive_until_close(ws)
    assert rest.types == ["data_ready"], rest
    assert rest.close_code == 1000, rest
