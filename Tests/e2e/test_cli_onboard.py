"""The `fieldpass` command line: onboard as a device, realms, keys."""

from __future__ import annotations

import queue
import re
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from helpers import (
    server_in,
    FieldpassServer,
    browser_login,
    http_client,
    open_confirmation,
    clean_env,
    cli_output,
    describe,
    is_html,
)

REALM_PATH = re.compile(r"/users/[A-Za-z0-9._~:-]+")
CODE_PREFIX = "Code: "
LOGIN_PREFIX = "Login URL: "


class OnboardProcess:
    """`fieldpass onboard` with its stdout read line by line on a thread."""

    def __init__(self, server: FieldpassServer, email: str, log_dir: Path) -> None:
        self.stderr_path = log_dir / "onboard.stderr.log"
        with open(self.stderr_path, "w") as stderr:
            self.proc = subprocess.Popen(
                [str(server.binary), "onboard", email, "--server", server.public_url],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=server.env,
                text=True,
                bufsize=1,
            )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def output(self) -> str:
        stderr = self.stderr_path.read_text(errors="replace")
        return "--- stdout ---\n" + "\n".join(self.lines) + "\n--- stderr ---\n" + stderr

    def wait_for_line(self, matches: Callable[[str], bool], what: str, timeout: float = 15.0) -> str:
        for line in self.lines:
            if matches(line):
                return line
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                pytest.fail(f"onboard ended its output before {what}\n{self.output()}")
            self.lines.append(line)
            if matches(line):
                return line
        pytest.fail(f"no {what} on stdout within {timeout} s (is stdout flushed?)\n{self.output()}")

    def wait_exit(self, timeout: float = 20.0) -> int:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"onboard did not exit within {timeout} s\n{self.output()}")
        # Drain what is left of stdout.
        while True:
            try:
                line = self._queue.get(timeout=2)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture
def onboard(server: FieldpassServer, email: str, tmp_path: Path):
    started: list[OnboardProcess] = []

    def start() -> OnboardProcess:
        process = OnboardProcess(server, email, tmp_path)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()


def test_onboard_command_completes_after_data_ready(
    server: FieldpassServer, email: str, onboard
) -> None:
    device = onboard()
    code = device.wait_for_line(lambda line: line.startswith(CODE_PREFIX), "'Code: ' line")[len(CODE_PREFIX) :].strip()
    url = device.wait_for_line(lambda line: line.startswith(LOGIN_PREFIX), "'Login URL: ' line")
    login_url = url[len(LOGIN_PREFIX) :].strip()
    # The person compares the terminal's code with the confirmation page's.
    with http_client() as client:
        assert open_confirmation(login_url, client).user_code == code

    callback = browser_login(login_url, email)
    assert callback.status_code == 200 and is_html(callback), describe(callback)

    line = device.wait_for_line(lambda line: REALM_PATH.search(line) is not None, "realm path")
    realm_path = REALM_PATH.search(line).group(0)
    result = server.mark_initialized(realm_path)
    assert result.returncode == 0, cli_output(result)

    code = device.wait_exit()
    assert code == 0, f"onboard exited with {code}\n{device.output()}"
    assert realm_path in "\n".join(device.lines)
    # It ends with what to do next: call the API as the device.
    assert any(line.startswith("Onboarded. Next:") and f"{server.public_url}/me" in line for line in device.lines), device.output()


def test_onboard_command_fails_when_login_is_denied(
    server: FieldpassServer, email: str, onboard
) -> None:
    device = onboard()
    url = device.wait_for_line(lambda line: line.startswith(LOGIN_PREFIX), "'Login URL: ' line")
    browser_login(url[len(LOGIN_PREFIX) :].strip(), email, deny=True)
    code = device.wait_exit()
    assert code != 0, f"onboard exited 0 after a denied login\n{device.output()}"


def test_mark_initialized_unknown_realm_fails(server: FieldpassServer) -> None:
    result = server.mark_initialized(f"/users/{uuid.uuid4()}")
    assert result.returncode != 0, cli_output(result)
    assert (result.stdout + result.stderr).strip(), "no message for an unknown realm"


@pytest.mark.parametrize(
    ("args", "key_type"),
    [((), ec.EllipticCurvePrivateKey), (("--alg", "RS256"), rsa.RSAPrivateKey)],
    ids=["default-ES256", "RS256"],
)
def test_keys_generate_writes_private_pem(
    fieldpass_bin: Path, idp, tmp_path: Path, args: tuple[str, ...], key_type: type
) -> None:
    server = server_in(tmp_path, fieldpass_bin, idp, clean_env())
    server.keys_dir.mkdir()
    server.write_config()
    result = server.cli("keys", "generate", *args, "--config", str(server.config_path))
    assert result.returncode == 0, cli_output(result)

    pems = list(server.keys_dir.glob("*.pem"))
    assert len(pems) == 1, f"expected one new PEM in {server.keys_dir}, found {pems}"
    key = load_pem_private_key(pems[0].read_bytes(), password=None)
    assert isinstance(key, key_type), type(key)
    if isinstance(key, ec.EllipticCurvePrivateKey):
        assert key.curve.name == "secp256r1"
    else:
        assert key.key_size >= 2048
    mode = pems[0].stat().st_mode & 0o777
    assert mode & 0o077 == 0, f"private key file is readable by others: {oct(mode)}"
