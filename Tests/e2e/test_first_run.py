"""What a new user meets first: `make run` refusing a taken port before it builds and
stopping everything when a supervisor sends make alone SIGTERM; `fieldpass onboard`
against a server that is down naming the URL it tried; configuration mistakes printed
without the usage text (a short service-account secret naming the account, a metrics
token variable that is not set naming its key); an unknown environment naming the known
ones."""

from __future__ import annotations

import os
import signal
import socket
import subprocess

from pathlib import Path

import pytest

from helpers import (
    EMAIL_DOMAIN,
    EnvironmentSpec,
    FieldpassServer,
    MockIdP,
    ServiceAccountSpec,
    clean_env,
    free_port,
    server_env,
    server_in,
    wait_until,
)
from helpers.local_run import make_run, wait_until_serving


def refuses(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.store_independent
def test_make_run_refuses_a_taken_port_before_it_builds(tmp_path: Path) -> None:
    server_port, idp_port = free_port(), free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", server_port))
        taken.listen()
        make = make_run(tmp_path, server_port, idp_port)
        assert make.wait(60) != 0
    output = (tmp_path / "make.log").read_text()
    assert f"127.0.0.1:{server_port} (Fieldpass) is already in use" in output, output
    assert "swift build" not in output and "Compiling" not in output, output


@pytest.mark.store_independent
@pytest.mark.parametrize("whole_group", [False, True], ids=["make-alone", "whole-group"])
def test_sigterm_stops_the_idp_and_the_server_cleanly(tmp_path: Path, whole_group: bool) -> None:
    """`make run` serves, says what to do next, and stops with everything it started, whether
    a supervisor sends make alone SIGTERM or the whole process group gets it (a terminal's
    `kill`, a service manager): a stop asked for is no error."""
    server_port, idp_port = free_port(), free_port()
    make = make_run(tmp_path, server_port, idp_port)
    try:
        wait_until_serving(make, tmp_path, server_port)
        log = tmp_path / "make.log"
        wait_until(lambda: "Stop with Ctrl-C." in log.read_text(), timeout=10, what="make run to say what to do next")
        output = log.read_text()
        # What to do next, once it listens; and no warning of the IdP's that reads like an error.
        assert f"Fieldpass is ready at http://127.0.0.1:{server_port}" in output, output
        assert "onboard alice@example.com" in output and f"http://127.0.0.1:{server_port}/console" in output, output
        assert "admin@example.com" in output and "Warning" not in output, output
        assert not refuses(idp_port)
        if whole_group:
            os.killpg(make.pid, signal.SIGTERM)
        else:
            make.send_signal(signal.SIGTERM)  # make alone, as a supervisor does, not its group
        make.wait(10)
        wait_until(lambda: refuses(server_port) and refuses(idp_port), timeout=10, what="the server and IdP to stop")
        stopped = log.read_text()
        assert "Error 143" not in stopped and "make: ***" not in stopped, stopped[-2000:]
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
        else:
            try:
                os.killpg(make.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def test_onboard_against_a_server_that_is_down_names_the_url(fieldpass_bin: Path) -> None:
    port = free_port()
    result = subprocess.run(
        [str(fieldpass_bin), "onboard", "ann@example.com", "--server", f"http://127.0.0.1:{port}"],
        capture_output=True, text=True, timeout=30, env=clean_env(),
    )
    assert result.returncode == 1
    assert f"cannot reach http://127.0.0.1:{port}/register_device: connection refused" in result.stderr, result.stderr
    assert "reset" not in result.stderr


@pytest.fixture
def configured(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> FieldpassServer:
    server = server_in(tmp_path, fieldpass_bin, idp, server_env(None, None))
    server.generate_key()
    return server


def test_a_configuration_error_prints_alone(configured: FieldpassServer) -> None:
    configured.config_path.write_text(configured.config_path.read_text() + "surprise: 1\n")
    result = configured.cli("serve", "--config", str(configured.config_path))
    assert result.returncode == 1
    assert result.stderr.strip() == f"Error: configuration {configured.config_path}: surprise: is not a known configuration key", result.stderr
    assert "Usage" not in result.stderr + result.stdout


def test_a_short_service_account_secret_stops_start_up_naming_the_account(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    short = ServiceAccountSpec("erp-sync", "ERP_SYNC_SECRET", "only-31-characters-long-secret!")
    assert len(short.secret) == 31
    environments = (EnvironmentSpec("dev", (EMAIL_DOMAIN,), service_accounts=(short,)),)
    server = server_in(tmp_path, fieldpass_bin, idp, server_env(None, environments), environments=environments)
    server.workdir.mkdir(parents=True, exist_ok=True)
    server.write_config()
    stderr = server.refused_start()
    assert "environments.dev.service_accounts.erp-sync.secret_env:" in stderr, stderr
    assert "'erp-sync'" in stderr and "32 characters" in stderr, stderr
    assert short.secret not in stderr, "the secret was printed"
    # One character more and it starts.
    server.env[short.secret_env] = short.secret + "!"
    server.start()
    server.stop()


@pytest.mark.parametrize("value", [None, "", "too-short-for-a-token"])
def test_a_metrics_token_variable_unset_or_short_stops_start_up(configured: FieldpassServer, value: str | None) -> None:
    configured.env["METRICS_TOKEN_ENV"] = "SCRAPE_TOKEN"
    if value is not None:
        configured.env["SCRAPE_TOKEN"] = value
    stderr = configured.refused_start()
    assert "metrics.token_env:" in stderr and "SCRAPE_TOKEN" in stderr, stderr
    assert not value or value not in stderr, "the token was printed"


def test_an_unknown_environment_names_the_known_ones(configured: FieldpassServer) -> None:
    assert configured.cli("migrate", "--config", str(configured.config_path)).returncode == 0
    result = configured.cli("admin", "users", "--env", "nope", "--config", str(configured.config_path))
    assert result.returncode == 1
    assert f"no environment 'nope' in {configured.config_path}; known: 'dev'" in result.stderr, result.stderr
    assert "Usage" not in result.stderr


def test_without_env_the_cli_takes_the_only_environment(configured: FieldpassServer) -> None:
    assert configured.cli("migrate", "--config", str(configured.config_path)).returncode == 0
    email = "nobody-yet@example.com"
    listed = configured.cli("admin", "users", "--config", str(configured.config_path))
    devices = configured.cli("admin", "devices", email, "--config", str(configured.config_path))
    assert listed.returncode == 0, listed.stderr
    # The person is looked up in 'dev', the only environment, and is not there.
    assert devices.returncode == 1 and f"no user {email} in environment 'dev'" in devices.stderr, devices.stderr
