"""`make run-cluster`'s walkthrough as written (README, Docs/operating.md "Several instances on
PostgreSQL"): the cluster starts on ports of the test's own and prints its next steps; in another
terminal, the line it printed points the CLI at the cluster's PostgreSQL (not the SQLite file of
Config/fieldpass.yaml), `fieldpass onboard` on the second instance prints the realm, and
`fieldpass realms mark-initialized` from the CLI gets the device to "Data ready".

The binary under test stands in for the build (`make -o build`, BIN) and the suite's Python for
the venv (`-o venv`, VENV_PY): the suite tests FIELDPASS_BIN, and its PostgreSQL pass builds
nothing beside the SQLite pass's build. PostgreSQL only: `make run-cluster` starts a throw-away
PostgreSQL of its own (scripts/postgres-cluster), on a free port here.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import (
    CLI_TIMEOUT,
    WatchedCommand,
    browser_login,
    clean_env,
    cli_output,
    describe,
    free_port,
    is_html,
    wait_until,
)
from helpers.cluster import POSTGRES_CLUSTER, REPO_ROOT

pytestmark = pytest.mark.postgres_only

REALM_PATH = re.compile(r"/users/[A-Za-z0-9._~:-]+")
LOGIN_PREFIX = "Login URL: "
# A printed step: the command, then at least three spaces, then what it is for.
STEP = re.compile(r"^  (?P<command>\S.*?)\s{3,}\S")
STARTUP_TIMEOUT = 45.0


@dataclass
class RunningCluster:
    """`make run-cluster` in its own process group, and what it printed so far."""

    process: subprocess.Popen[bytes]
    log: Path
    ports: tuple[int, int]
    pg_port: int

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        """SIGTERM to the whole group, as a terminal's Ctrl-C reaches it; the PostgreSQL
        cluster is destroyed even if the script could not do it itself."""
        try:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGTERM)
                try:
                    self.process.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait(5)
        finally:
            subprocess.run(
                [str(POSTGRES_CLUSTER), "destroy", str(self.pg_port)],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
            )


@pytest.fixture
def run_cluster(fieldpass_bin: Path, tmp_path: Path) -> Iterator[RunningCluster]:
    """`make run-cluster` on free ports (instances, IdP, PostgreSQL), with its own key folder
    and a random PostgreSQL password, so a developer's own cluster is untouched."""
    ports = (free_port(), free_port())
    idp_port, pg_port = free_port(), free_port()
    env = clean_env({
        "CLUSTER_PORTS": f"{ports[0]} {ports[1]}",
        "PG_PORT": str(pg_port),
        "FIELDPASS_PG_PASSWORD": secrets.token_urlsafe(18),
        "ENVIRONMENTS_DEV_IDP_ISSUER": f"http://127.0.0.1:{idp_port}",
        "TOKENS_KEYS_DIR": str(tmp_path / "keys"),
    })
    log = tmp_path / "make.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            ["make", "--no-print-directory", "-o", "build", "-o", "venv", "run-cluster",
             f"BIN={fieldpass_bin}", f"VENV_PY={sys.executable}", f"IDP_PORT={idp_port}", f"KEYS_DIR={tmp_path / 'keys'}"],
            cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    cluster = RunningCluster(process, log, ports, pg_port)
    try:
        yield cluster
    finally:
        cluster.stop()


def printed_step(output: str, word: str) -> str:
    """The command of the printed step that holds `word` (`onboard`, `mark-initialized`)."""
    commands = [match.group("command") for line in output.splitlines() if (match := STEP.match(line))]
    found = [command for command in commands if word in command.split()]
    assert len(found) == 1, f"no one step with {word!r} in:\n{output}"
    return found[0]


# What make exports to the cluster, and a terminal of one's own does not have.
MAKE_EXPORTS = ("DEV_IDP_CLIENT_SECRET", "DEV_BACKEND_SECRET", "DEV_SCIM_TOKEN", "FIELDPASS_PG_PASSWORD")


def terminal_env() -> dict[str, str]:
    """Another terminal's environment: nothing make gave the cluster, no configuration override."""
    env = clean_env()
    for name in MAKE_EXPORTS:
        env.pop(name, None)
    return env


def in_another_terminal(*lines: str) -> subprocess.CompletedProcess[str]:
    """`lines` as a person types them into a new terminal in the repository."""
    return subprocess.run(
        ["bash", "-ec", "\n".join(lines)], cwd=REPO_ROOT, env=terminal_env(), stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=CLI_TIMEOUT,
    )


def test_make_run_cluster_walkthrough_reaches_data_ready(run_cluster: RunningCluster, tmp_path: Path) -> None:
    first, second = (f"http://127.0.0.1:{port}" for port in run_cluster.ports)

    def next_steps_printed() -> bool:
        assert run_cluster.process.poll() is None, run_cluster.output()
        return "Stop with Ctrl-C." in run_cluster.output()
    wait_until(next_steps_printed, timeout=STARTUP_TIMEOUT, what="make run-cluster to say what to do next")
    output = run_cluster.output()
    assert f"Fieldpass is ready at {first} and {second}" in output, output
    exports = [line.strip() for line in output.splitlines() if line.strip().startswith("export ")]
    assert len(exports) == 1, f"no one export line for the CLI in:\n{output}"
    cli_env = exports[0]
    assert f"127.0.0.1:{run_cluster.pg_port}/" in cli_env, cli_env

    # The device, as printed: on the second instance.
    onboard = printed_step(output, "onboard")
    assert f"--server {second}" in onboard, onboard
    device = WatchedCommand("onboard", ["bash", "-c", onboard], terminal_env(), tmp_path)
    try:
        url = device.wait_for_line(lambda line: line.startswith(LOGIN_PREFIX), "'Login URL: ' line")
        email = onboard.split()[onboard.split().index("onboard") + 1]
        callback = browser_login(url[len(LOGIN_PREFIX):].strip(), email)
        assert callback.status_code == 200 and is_html(callback), describe(callback)
        line = device.wait_for_line(lambda line: REALM_PATH.search(line) is not None, "realm path")
        realm_path = REALM_PATH.search(line).group(0)

        # The company's backend, played from another terminal with the printed line first.
        mark = printed_step(output, "mark-initialized").replace(" PATH", f" {realm_path}")
        marked = in_another_terminal(cli_env, mark)
        assert marked.returncode == 0, cli_output(marked)
        assert device.wait_exit() == 0, device.output()
    finally:
        device.kill()
    assert any(line == f"Data ready: {realm_path}" for line in device.lines), device.output()

    # The admin commands read the same database: the person is there.
    binary = mark.split()[0]
    users = in_another_terminal(cli_env, f"{binary} admin users --env dev")
    assert users.returncode == 0 and email in users.stdout, cli_output(users)
