"""`make run` as a new user starts it, from the checkout: the development IdP and Fieldpass with
Config/fieldpass.yaml, but on free ports, with keys, a database and a home folder of its own, so
that a developer's own run is untouched. The commands a page tells a reader to type in a second
terminal run in the checkout with the same environment, as they would there."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from .processes import free_port, wait_until
from .settings import CLI_TIMEOUT
from .web import http_client

REPO = Path(__file__).resolve().parents[3]


def make_run_env(tmp_path: Path, server_port: int, idp_port: int) -> dict[str, str]:
    """`make run` on its own ports, keys and database, so a developer's own run is untouched."""
    return {
        **os.environ,
        "SERVER_PORT": str(server_port),
        "SERVER_PUBLIC_URL": f"http://127.0.0.1:{server_port}",
        "ENVIRONMENTS_DEV_IDP_ISSUER": f"http://127.0.0.1:{idp_port}",
        "STORAGE_SQLITE_PATH": str(tmp_path / "data" / "fieldpass.sqlite"),
        "TOKENS_KEYS_DIR": str(tmp_path / "keys"),
    }


def make_run(tmp_path: Path, server_port: int, idp_port: int) -> subprocess.Popen[bytes]:
    """`make run` started in the checkout, its output in `tmp_path`/make.log."""
    return subprocess.Popen(
        ["make", "--no-print-directory", "run", f"IDP_PORT={idp_port}", f"KEYS_DIR={tmp_path / 'keys'}"],
        cwd=REPO, env=make_run_env(tmp_path, server_port, idp_port),
        stdout=open(tmp_path / "make.log", "wb"), stderr=subprocess.STDOUT, start_new_session=True,
    )


def wait_until_serving(make: subprocess.Popen[bytes], tmp_path: Path, server_port: int, timeout: float = 240) -> None:
    """Until Fieldpass answers /readyz (after the build, which may have something to do);
    fails with make's output if make ends first."""
    with http_client(timeout=2.0) as client:
        def ready() -> bool:
            assert make.poll() is None, (tmp_path / "make.log").read_text()
            try:
                return client.get(f"http://127.0.0.1:{server_port}/readyz").status_code == 200
            except Exception:
                return False
        wait_until(ready, timeout=timeout, what="make run to serve")


@dataclass
class LocalRun:
    """A `make run` serving at `url`, and the environment of a terminal beside it (with
    `home` as its data folder, `$XDG_DATA_HOME`)."""

    url: str
    env: dict[str, str]
    home: Path

    def shell(self, command: str) -> subprocess.CompletedProcess[str]:
        """`command` as a person types it in the checkout."""
        return self._run(["bash", "-c", command])

    def fieldpass(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`.build/debug/fieldpass ARGS` run in the checkout, as its walkthroughs run it."""
        return self._run([str(REPO / ".build/debug/fieldpass"), *args])

    def _run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(
                argv, cwd=REPO, env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=CLI_TIMEOUT)
        except subprocess.TimeoutExpired as error:
            pytest.fail(f"{argv} did not finish in {CLI_TIMEOUT} s: {error}")


@contextmanager
def serving_make_run(tmp_path: Path) -> Iterator[LocalRun]:
    """`make run` serving, stopped (the IdP and the server with it) on leaving."""
    server_port, idp_port = free_port(), free_port()
    make = make_run(tmp_path, server_port, idp_port)
    try:
        wait_until_serving(make, tmp_path, server_port)
        home = tmp_path / "home"
        home.mkdir(mode=0o700)
        env = make_run_env(tmp_path, server_port, idp_port) | {"XDG_DATA_HOME": str(home / ".local/share")}
        yield LocalRun(f"http://127.0.0.1:{server_port}", env, home)
    finally:
        try:
            os.killpg(make.pid, signal.SIGTERM)
            make.wait(10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(make.pid, signal.SIGKILL)
