"""Debian's nginx in front of two instances on one PostgreSQL database, with
Docs/examples/nginx-fieldpass.conf as committed: only its ports and paths are the test's own (the
instances' ports, nginx's, and a certificate from a CA of the test's for 127.0.0.1). Devices
onboard through it by WebSocket and by long-poll, over both instances, with one request id in
nginx's log and Fieldpass's; the rate limits count the device's address, which nginx forwards and
`server.trusted_proxies` believes; and an instance that drains (SIGTERM: `/readyz` answers 503
for `server.drain_time`, then it stops) leaves every request through nginx answered: the socket
it held reconnects to the other instance, a long-poll waiting through the drain never fails, and
the registration nginx sends to it once it stopped is refused there and goes to the other.

nginx runs in the foreground as the test's user, with its pid, logs and temporary files in the
test's folder. `make deps` installs Debian's `nginx`: without it the tests fail, they are not
skipped. PostgreSQL only: several instances share one database.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from helpers import (
    AUDIENCE,
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    HTTP_TIMEOUT,
    Cluster,
    LocalCA,
    ManagedProcess,
    MockIdP,
    Registration,
    assert_json,
    browser_login,
    cluster_in,
    describe,
    free_port,
    http_client,
    is_html,
    metric,
    receive,
    receive_until_close,
    scrape,
    start_process,
    unique_email,
    verify_jwt,
    wait_until,
)
from helpers.cluster import REPO_ROOT

pytestmark = pytest.mark.postgres_only

CONFIG = REPO_ROOT / "Docs" / "examples" / "nginx-fieldpass.conf"
# What the committed file names that is this test's own: the instances, where nginx listens,
# its certificate and key.
DOC_INSTANCES = ("server 10.0.0.11:8080 ", "server 10.0.0.12:8080 ")
DOC_LISTEN = "listen 443 ssl;"
DOC_CERTIFICATE = "/etc/ssl/fieldpass/fullchain.pem"
DOC_KEY = "/etc/ssl/private/fieldpass.key"
STARTUP_TIMEOUT = 15.0
DRAIN_TIME = 3
BURST = 3
ONBOARDING = ["token", "realm_initialized", "data_ready"]


def nginx_binary() -> str:
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if binary is None:
        pytest.fail("nginx is missing: `make deps` installs Debian's nginx (or apt-get install nginx)")
    return binary


def site_config(instance_ports: tuple[int, int], port: int, certificates: Path) -> str:
    """The committed file with the test's ports and paths, each placeholder replaced once."""
    text = CONFIG.read_text(encoding="utf-8")
    replacements = [
        (DOC_INSTANCES[0], f"server 127.0.0.1:{instance_ports[0]} "),
        (DOC_INSTANCES[1], f"server 127.0.0.1:{instance_ports[1]} "),
        (DOC_LISTEN, f"listen 127.0.0.1:{port} ssl;"),
        (DOC_CERTIFICATE, str(certificates / "server.crt")),
        (DOC_KEY, str(certificates / "server.key")),
    ]
    for placeholder, value in replacements:
        assert text.count(placeholder) == 1, f"{CONFIG.name} no longer has {placeholder!r} once"
        text = text.replace(placeholder, value)
    return text


def main_config(folder: Path) -> str:
    """A minimal nginx.conf of the test's own around the site file, as Debian's includes it."""
    # Started as root, nginx would serve as `nobody`, who cannot enter the test's folder.
    user = [f"user {pwd.getpwuid(os.geteuid()).pw_name};"] if os.geteuid() == 0 else []
    return "\n".join([
        *user,
        "daemon off;",
        "worker_processes 1;",
        f"pid {folder}/nginx.pid;",
        "error_log stderr notice;",
        "events { worker_connections 256; }",
        "http {",
        f"    access_log {folder}/access.log;",
        *(f"    {kind}_temp_path {folder}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")),
        f"    include {folder}/fieldpass.conf;",
        "}",
        "",
    ])


@dataclass
class Front:
    """The two instances, and nginx in front at https://127.0.0.1:`port`."""

    cluster: Cluster
    port: int
    nginx: ManagedProcess
    tls: ssl.SSLContext = field(repr=False)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def client(self, *, local_address: str | None = None, timeout: float = HTTP_TIMEOUT) -> httpx.Client:
        """A device's (or a browser's) HTTP client that trusts nginx's certificate; from
        `local_address` (another loopback address), a device of its own."""
        if local_address is None:
            return http_client(verify=self.tls, timeout=timeout)
        return http_client(transport=httpx.HTTPTransport(verify=self.tls, local_address=local_address), timeout=timeout)

    def websocket(self, url: str) -> ClientConnection:
        return connect(url, ssl=self.tls, open_timeout=HTTP_TIMEOUT, close_timeout=5, proxy=None)

    def register(self, email: str) -> Registration:
        with self.client() as client:
            response = client.post(f"{self.url}/register_device", json={"email": email, "device": {"name": "Pixel 8", "platform": "android"}})
        assert response.status_code == 201, describe(response)
        body = response.json()
        for key in ("websocket_url", "events_url", "login_url"):
            assert body[key].startswith(("wss://" if key == "websocket_url" else "https://") + f"127.0.0.1:{self.port}/"), body
        return Registration(email, None, body["session_id"], body["login_url"], body["websocket_url"], body["events_url"],
                            body["expires_in"], body["user_code"], body)

    def sign_in(self, registration: Registration) -> None:
        """The person's browser, through nginx: confirmation page, IdP, callback."""
        with self.client() as browser:
            callback = browser_login(registration.login_url, registration.email, browser=browser)
        assert callback.status_code == 200 and is_html(callback), describe(callback)

    def mark_initialized(self, realm_path: str) -> None:
        """dev's backend, through nginx."""
        with self.client() as client:
            token = assert_json(client.post(f"{self.url}/token", data={"grant_type": "client_credentials"},
                                            auth=(DEV_BACKEND.id, DEV_BACKEND.secret)))["access_token"]
            marked = client.post(f"{self.url}/integration/realms/initialized", json={"realm_path": realm_path},
                                 headers={"authorization": f"Bearer {token}"})
        assert assert_json(marked).get("initialized") is True, describe(marked)

    def stop(self) -> None:
        try:
            self.nginx.stop()
        finally:
            self.cluster.stop()


def start_front(fieldpass_bin: Path, idp: MockIdP, folder: Path, *, limits: dict[str, Any] | None = None) -> Front:
    """Two instances on a fresh database (public URL nginx's, nginx trusted as their proxy,
    DRAIN_TIME seconds of drain), then nginx in front of them."""
    port = free_port()
    cluster = cluster_in(fieldpass_bin, idp, folder, 2, environments=DIRECTORY_ENVIRONMENTS,
                         extra_env={"SERVER_TRUSTED_PROXIES": "127.0.0.1"})
    nginx: ManagedProcess | None = None
    try:
        for instance in cluster.instances:
            instance.shared_public_url = f"https://127.0.0.1:{port}"
            instance.drain_time = DRAIN_TIME
            instance.limits = limits
        cluster.instances[0].generate_key()
        for instance in cluster.instances:
            instance.launch(new_key=False)
        for instance in cluster.instances:
            instance.wait_ready()

        ca = LocalCA.make(folder / "ca", "Fieldpass nginx test CA")
        certificates = ca.issue_server()
        nginx_folder = folder / "nginx"
        nginx_folder.mkdir()
        ports = (cluster.instances[0].port, cluster.instances[1].port)
        (nginx_folder / "fieldpass.conf").write_text(site_config(ports, port, certificates))
        (nginx_folder / "nginx.conf").write_text(main_config(nginx_folder))
        command = [nginx_binary(), "-p", f"{nginx_folder}/", "-c", str(nginx_folder / "nginx.conf"), "-e", "stderr"]
        env = {"PATH": os.environ["PATH"]}
        syntax = start_process("nginx-configtest", [*command, "-t"], nginx_folder, env)
        assert syntax.proc.wait(STARTUP_TIMEOUT) == 0, f"nginx -t refused the configuration\n{syntax.log_tail()}"
        syntax.stop()
        nginx = start_process("nginx", command, nginx_folder, env)
        front = Front(cluster, port, nginx, ssl.create_default_context(cafile=str(ca.certificate)))
        wait_for_nginx(front)
        return front
    except BaseException:
        if nginx is not None:
            nginx.stop()
        cluster.stop()
        raise


def wait_for_nginx(front: Front) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    with front.client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if not front.nginx.alive():
                pytest.fail(f"nginx exited with status {front.nginx.proc.returncode}\n{front.nginx.log_tail()}")
            try:
                if client.get(f"{front.url}/readyz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
    pytest.fail(f"nginx did not answer within {STARTUP_TIMEOUT:g} s\n{front.nginx.log_tail()}")


@pytest.fixture(scope="module")
def front(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Front]:
    """Rate limits on, `revoke`'s at BURST a minute so that nothing refills while a test runs."""
    started = start_front(fieldpass_bin, idp, tmp_path_factory.mktemp("nginx"),
                          limits={"revoke": {"per_minute": 1, "burst": BURST}})
    yield started
    started.stop()


def requests_answered(front: Front) -> list[float]:
    """Each instance's answered requests so far (`http_requests_total`), its scrapes left out."""
    return [
        sum(value for (name, labels), value in scrape(instance)[1].items()
            if name == "http_requests_total" and dict(labels).get("route") != "/metrics")
        for instance in front.cluster.instances
    ]


def assert_onboarding(events: list[dict[str, Any]]) -> None:
    assert [event.get("type") for event in events] == ONBOARDING, events
    assert [event.get("seq") for event in events] == [1, 2, 3], events


# --------------------------------------------------------------------------- onboarding through nginx


def onboard_by_long_poll(front: Front, registration: Registration, follower: LongPollingDevice) -> None:
    """The person signs in and the backend fills the realm; `follower` hears the whole
    onboarding by long-poll, every answer a 200."""
    front.sign_in(registration)
    wait_until(lambda: "realm_initialized" in follower.types(), timeout=10, what="realm_initialized by long-poll")
    front.mark_initialized(follower.events[1]["realm_path"])
    follower.join()
    assert_onboarding(follower.events)
    assert follower.statuses == [200] * len(follower.statuses), follower.statuses


def test_a_device_onboards_through_nginx_by_websocket(front: Front) -> None:
    before = requests_answered(front)
    registration = front.register(unique_email("nginx-socket"))
    with front.websocket(registration.websocket_url) as ws:
        front.sign_in(registration)
        signed_in = receive(ws, 2)
        realm_path = signed_in[1]["realm_path"]
        front.mark_initialized(realm_path)
        rest = receive_until_close(ws)
    assert_onboarding(signed_in + rest.events)
    assert rest.closed and rest.close_code == 1000, rest
    with front.client() as client:
        keys = client.get(f"{front.url}/.well-known/jwks.json")
        own_id = client.get(f"{front.url}/healthz", headers={"x-request-id": "device-7:retry.2"})
    assert keys.status_code == 200, describe(keys)
    # One request id in nginx's log and Fieldpass's: nginx's own, or the one the device sent.
    assert re.fullmatch(r"[0-9a-f]{32}", keys.headers.get("x-request-id", "")), keys.headers
    assert own_id.headers.get("x-request-id") == "device-7:retry.2", own_id.headers
    claims = verify_jwt(signed_in[0]["access_token"], keys.json(), issuer=front.url, audience=AUDIENCE)
    assert claims["email"] == registration.email and realm_path == f"/users/{claims['sub']}", claims
    # nginx spread the onboarding's requests over both instances.
    after = requests_answered(front)
    assert all(now > then for now, then in zip(after, before)), (before, after)


def test_a_device_onboards_through_nginx_by_long_poll(front: Front) -> None:
    registration = front.register(unique_email("nginx-poll"))
    follower = LongPollingDevice(front, registration.events_url, wait=25)
    # The long-poll waits in nginx's hands while the person signs in.
    wait_until(lambda: follower.polls_sent > 0, timeout=5, what="the first long-poll")
    time.sleep(0.5)
    onboard_by_long_poll(front, registration, follower)
    # The sign-in's events ended a waiting poll rather than its 25 s running out.
    assert max(follower.seconds) < 20, follower.seconds


# --------------------------------------------------------------------------- the device's address


def test_rate_limits_count_the_device_address_behind_nginx(front: Front) -> None:
    def revoke(address: str, forwarded_for: str | None = None) -> int:
        headers = {"x-forwarded-for": forwarded_for} if forwarded_for else {}
        with front.client(local_address=address) as client:
            return client.post(f"{front.url}/revoke", data={"token": "x"}, headers=headers).status_code

    # Each instance keeps its own buckets: this device gets BURST from each, then 429 from both.
    statuses = [revoke("127.0.0.2") for _ in range(2 * BURST + 2)]
    assert statuses.count(429) >= 2 and statuses[-2:] == [429, 429], statuses
    assert all(status == 200 for status in statuses if status != 429), statuses
    # The header a device sends itself is not believed: nginx appends the address it saw.
    assert [revoke("127.0.0.2", forwarded_for="198.51.100.7") for _ in range(2)] == [429, 429]
    # Another device behind the same nginx has buckets of its own.
    assert [revoke("127.0.0.3") for _ in range(2)] == [200, 200]


# --------------------------------------------------------------------------- draining an instance


class LongPollingDevice:
    """A device following its session by long-poll through nginx, from a thread, until the
    session ends; every status it got, and how long each poll took."""

    def __init__(self, front: Front, events_url: str, *, wait: int) -> None:
        self.front = front
        self.events_url = events_url
        self.wait = wait
        self.events: list[dict[str, Any]] = []
        self.statuses: list[int] = []
        self.seconds: list[float] = []
        self.polls_sent = 0
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def types(self) -> list[str]:
        return [event.get("type", "") for event in list(self.events)]

    def _run(self) -> None:
        try:
            after, deadline = 0, time.monotonic() + 45
            with self.front.client(timeout=HTTP_TIMEOUT + self.wait) as client:
                while time.monotonic() < deadline:
                    self.polls_sent += 1
                    started = time.monotonic()
                    response = client.get(httpx.URL(self.events_url).copy_merge_params({"after": after, "wait": self.wait}))
                    self.seconds.append(time.monotonic() - started)
                    self.statuses.append(response.status_code)
                    if response.status_code != 200:
                        time.sleep(0.1)
                        continue
                    body = response.json()
                    self.events += body["events"]
                    after = self.events[-1]["seq"] if self.events else after
                    if body["ended"]:
                        return
                    if not body["events"]:
                        time.sleep(0.05)  # a draining instance answers at once
        except BaseException as error:  # the test reports it
            self.error = error

    def join(self, timeout: float = 30.0) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), f"the long-polling device did not end: {self.events}, {self.statuses}"
        if self.error is not None:
            raise self.error


def readiness(instance_url: str) -> tuple[int, Any]:
    with http_client() as client:
        response = client.get(f"{instance_url}/readyz")
    return response.status_code, response.json()


def socket_holder(front: Front) -> int | None:
    """The index of the one instance holding an event socket, if one alone holds one."""
    open_sockets = [metric(scrape(instance)[1], "fieldpass_event_sockets") for instance in front.cluster.instances]
    return open_sockets.index(1) if sorted(open_sockets) == [0, 1] else None


def test_a_draining_instance_leaves_nginx_answering_from_the_other(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path,
) -> None:
    front = start_front(fieldpass_bin, idp, tmp_path)
    try:
        socket_device = front.register(unique_email("drain-socket"))
        polling_device = front.register(unique_email("drain-poll"))
        with front.websocket(socket_device.websocket_url) as ws:
            # The instance to drain is the one that holds the socket.
            wait_until(lambda: socket_holder(front) is not None, timeout=5, what="one instance to hold the device's socket")
            index = socket_holder(front)
            assert index is not None
            draining, other = front.cluster.instances[index], front.cluster.instances[1 - index]
            # Its long-poll waits on the other instance (least_conn), through the drain.
            follower = LongPollingDevice(front, polling_device.events_url, wait=25)

            # SIGTERM, as systemd stops it: /readyz takes it out for whoever polls it...
            draining.process.proc.send_signal(signal.SIGTERM)
            wait_until(lambda: readiness(draining.url)[0] == 503, timeout=5, what="/readyz to answer 503")
            assert readiness(draining.url) == (503, {"status": "unavailable", "reason": "draining"})
            assert readiness(other.url) == (200, {"status": "ready"})
            # ... while everything sent through nginx is answered.
            with front.client() as client:
                for _ in range(4):
                    assert client.get(f"{front.url}/.well-known/jwks.json").status_code == 200
            assert draining.process.proc.wait(DRAIN_TIME + 15) == 0, draining.log_tail()
            # It closed the device's socket as it stopped, with nothing lost.
            closed = receive_until_close(ws, timeout=5)
            assert closed.closed and not closed.events, closed

        # nginx sends what comes now to the other instance: the first registration goes to the
        # stopped one (it holds no connection), is refused there and is sent on.
        for _ in range(4):
            front.register(unique_email("after-drain"))
        refused = [line for line in front.nginx.log_tail(400).splitlines() if "(111: Connection refused)" in line]
        assert any('request: "POST /register_device' in line and f"upstream: \"http://127.0.0.1:{draining.port}/" in line
                   for line in refused), front.nginx.log_tail(400)
        with front.websocket(socket_device.websocket_url) as ws:
            front.sign_in(socket_device)
            signed_in = receive(ws, 2)
            front.mark_initialized(signed_in[1]["realm_path"])
            rest = receive_until_close(ws)
        assert_onboarding(signed_in + rest.events)
        assert rest.close_code == 1000, rest

        # The device that long-polled through it all onboards too, on the other instance.
        onboard_by_long_poll(front, polling_device, follower)
    finally:
        front.stop()
