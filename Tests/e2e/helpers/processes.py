"""Starting, watching and stopping the processes under test, and showing their output."""

from __future__ import annotations

import ctypes
import os
import pty
import queue
import random
import signal
import socket
import subprocess
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from .settings import IDP_CLIENT_SECRET
from .web import http_client

REPO_ROOT = Path(__file__).resolve().parents[3]

# Configuration keys can be overridden from the environment; variables with these
# prefixes are dropped from what the test processes inherit so that the CI
# environment cannot change the configuration under test.
_CONFIG_ENV_PREFIXES = ("SERVER_", "STORAGE_", "TOKENS_", "SESSIONS_", "ENVIRONMENTS_", "LIMITS_", "METRICS_")

# Processes started by the suite, so that a failing test can show their logs.
RUNNING: list[ManagedProcess] = []


def free_port() -> int:
    """A loopback port nobody listens on, for a server started a moment later. Not one the
    kernel hands out for port 0: those come from the ephemeral range (32768-60999 on Linux),
    from which every outgoing connection also takes its local port, so one could take the
    port before the server listens on it. Ports below that range go only to listeners."""
    for _ in range(200):
        port = random.randrange(20_000, 32_768)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError("no free loopback port below the ephemeral range")


def tail(path: Path, lines: int = 60) -> str:
    return head_and_tail(path, head=0, lines=lines)


def head_and_tail(path: Path, head: int = 20, lines: int = 60) -> str:
    """The first `head` and the last `lines` lines: a Swift crash report starts with the trap's
    message and ends with the other threads' backtraces."""
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError as error:
        return f"<cannot read {path}: {error}>"
    if len(text) <= head + lines:
        return "\n".join(text)
    return "\n".join([*text[:head], f"[... {len(text) - head - lines} lines ...]", *text[-lines:]])


def _die_with_parent() -> None:
    """Ask Linux to SIGTERM the child if the test runner dies without cleaning up."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(_CONFIG_ENV_PREFIXES)
    }
    env["DEV_IDP_CLIENT_SECRET"] = IDP_CLIENT_SECRET
    env.setdefault("NO_COLOR", "1")
    if extra:
        env.update(extra)
    return env


@dataclass
class ManagedProcess:
    name: str
    proc: subprocess.Popen[bytes]
    stdout_path: Path
    stderr_path: Path

    def log_tail(self, lines: int = 60) -> str:
        out = tail(self.stdout_path, lines)
        err = tail(self.stderr_path, lines)
        status = self.proc.poll()
        state = "running" if status is None else f"exited with status {status}"
        parts = [f"--- {self.name} ({state}) stderr ({self.stderr_path}) ---", err]
        if out.strip():
            parts += [f"--- {self.name} stdout ({self.stdout_path}) ---", out]
        return "\n".join(parts)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL (with a warning) if it has not exited after `timeout`."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
                warnings.warn(
                    f"{self.name} ignored SIGTERM for {timeout:.0f} s and was killed\n"
                    f"{self.log_tail(15)}",
                    stacklevel=2,
                )
        if self in RUNNING:
            RUNNING.remove(self)
        return self.proc.returncode


def start_process(
    name: str, argv: Sequence[str], log_dir: Path, env: Mapping[str, str]
) -> ManagedProcess:
    log_dir.mkdir(parents=True, exist_ok=True)
    stdout_path = log_dir / f"{name}.stdout.log"
    stderr_path = log_dir / f"{name}.stderr.log"
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=dict(env),
            preexec_fn=_die_with_parent,
        )
    managed = ManagedProcess(name, proc, stdout_path, stderr_path)
    RUNNING.append(managed)
    return managed


def wait_until(condition: Callable[[], bool], *, timeout: float, what: str) -> None:
    """Poll `condition` every 50 ms until it holds; fail naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.05)


def wait_until_http_ok(url: str, process: ManagedProcess, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last = "no attempt"
    with http_client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if not process.alive():
                process.stop()
                pytest.fail(
                    f"{process.name} exited with status {process.proc.returncode} "
                    f"before {url} answered\n{process.log_tail()}"
                )
            try:
                response = client.get(url)
                if response.status_code == 200:
                    return
                last = f"status {response.status_code}"
            except httpx.TransportError as error:
                last = repr(error)
            time.sleep(0.1)
    process.stop()
    pytest.fail(f"{url} not ready after {timeout:.0f} s ({last})\n{process.log_tail()}")


def cli_output(result: subprocess.CompletedProcess[str]) -> str:
    return (
        f"exit status {result.returncode}\n--- stdout ---\n{result.stdout}"
        f"\n--- stderr ---\n{result.stderr}"
    )


class WatchedCommand:
    """A command whose stdout a test reads line by line as it comes, as a person watches it.

    With `terminal=True` its stdout is a pseudo-terminal, as when a person runs it in one: C's
    stdio (and so Swift's `print`) flushes a terminal at each line, a pipe only when its buffer
    fills or the program ends. Its stderr goes to `log_dir`/`name`.stderr.log. With
    `answers=True` the test types its answers with answer(); else it reads nothing."""

    def __init__(
        self, name: str, argv: Sequence[str], env: Mapping[str, str], log_dir: Path, *, terminal: bool = False,
        answers: bool = False,
    ) -> None:
        self.name = name
        self.stderr_path = log_dir / f"{name}.stderr.log"
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        reader, writer = pty.openpty() if terminal else os.pipe()
        with open(self.stderr_path, "wb") as stderr:
            try:
                self.proc = subprocess.Popen(
                    list(argv), stdin=subprocess.PIPE if answers else subprocess.DEVNULL, stdout=writer, stderr=stderr, env=dict(env),
                    preexec_fn=_die_with_parent,
                )
            finally:
                os.close(writer)
        threading.Thread(target=self._read, args=(reader,), daemon=True).start()

    def _read(self, fd: int) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # EIO: the terminal's last writer is gone
                chunk = b""
            if not chunk:
                break
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                # A terminal ends its lines with \r\n.
                self._queue.put(line.decode(errors="replace").removesuffix("\r"))
        if pending:
            self._queue.put(pending.decode(errors="replace"))
        os.close(fd)
        self._queue.put(None)

    def output(self) -> str:
        stderr = head_and_tail(self.stderr_path)
        return f"--- {self.name} stdout ---\n" + "\n".join(self.lines) + f"\n--- {self.name} stderr ---\n" + stderr

    def wait_for_line(self, matches: Callable[[str], bool], what: str, timeout: float = 15.0, since: int = 0) -> str:
        """The first line (seen or to come) that `matches`, from the `since`-th line on (a
        count of `lines` taken earlier: a line printed again later); fails after `timeout` s,
        or when the output ends without one."""
        for line in self.lines[since:]:
            if matches(line):
                return line
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                pytest.fail(f"{self.name} ended its output before {what}\n{self.output()}")
            self.lines.append(line)
            if matches(line):
                return line
        pytest.fail(f"no {what} on {self.name}'s stdout within {timeout:g} s\n{self.output()}")

    def wait_exit(self, timeout: float = 20.0) -> int:
        """Its exit status, once it has exited and all its output is read."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{self.name} did not exit within {timeout:g} s\n{self.output()}")
        while True:
            try:
                line = self._queue.get(timeout=5)
            except queue.Empty:
                pytest.fail(f"{self.name} exited but its stdout did not end\n{self.output()}")
            if line is None:
                return code
            self.lines.append(line)

    def answer(self, line: str) -> None:
        """Types `line` and Enter, as a person answers the question the command asked."""
        assert self.proc.stdin is not None, f"{self.name} was started without answers=True"
        self.proc.stdin.write(f"{line}\n".encode())
        self.proc.stdin.flush()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
