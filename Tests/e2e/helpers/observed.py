"""What a server shows of its state from outside, as its operators and clients see it: the
users and devices `fieldpass admin` lists, the registrations its metrics count, the realms
on the integration feed, and an admin's view of the directory. Equal views before and
after a request mean the request changed nothing anyone can see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from .environments import DEV_BACKEND, ServiceAccountSpec
from .integration import IntegrationClient
from .processes import cli_output
from .server import FieldpassServer
from .web import assert_json, http_client

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(server: FieldpassServer) -> tuple[str, Samples]:
    """`GET /metrics`: its text and every sample by (name, labels)."""
    with http_client() as client:
        response = client.get(f"{server.url}/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4"), response.headers
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return response.text, samples


def metric(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


ONBOARDING_STEPS = ("registered", "confirmed", "signed_in", "data_ready", "expired")


def onboarding_steps(server: FieldpassServer) -> dict[str, int]:
    """How many onboardings reached each step (`fieldpass_onboarding_total`), by step."""
    samples = scrape(server)[1]
    return {step: int(metric(samples, "fieldpass_onboarding_total", step=step)) for step in ONBOARDING_STEPS}


def registrations(server: FieldpassServer) -> int:
    """Registrations the server stored."""
    return onboarding_steps(server)["registered"]


def admin_cli(server: FieldpassServer, *args: str, env: str = "dev") -> str:
    """`fieldpass admin ARGS --env ENV --config PATH`; must succeed; returns its stdout."""
    result = server.cli("admin", *args, "--env", env, "--config", str(server.config_path))
    assert result.returncode == 0, cli_output(result)
    return result.stdout


def cli_users(server: FieldpassServer, env: str = "dev") -> list[str]:
    """`fieldpass admin users`: one line per user (id, role, email, disabled)."""
    return sorted(admin_cli(server, "users", env=env).splitlines())


def cli_devices(server: FieldpassServer, email: str, env: str = "dev") -> dict[str, str]:
    """`fieldpass admin devices EMAIL`: each device's state (`active` or `revoked`) by id."""
    return {line.split()[0]: line.split()[1] for line in admin_cli(server, "devices", email, env=env).splitlines()}


def feed_realms(server: FieldpassServer, account: ServiceAccountSpec) -> dict[str, dict[str, Any]]:
    """Every realm of the account's environment on the integration feed, by path."""
    with IntegrationClient(server.public_url, account.id, account.secret) as client:
        client.authenticate()
        entries, _ = client.drain()
    return {entry["realm_path"]: entry for entry in entries}


def registration_footprint(server: FieldpassServer) -> dict[str, Any]:
    """What a registration stores, as seen from outside: dev's users (`fieldpass admin
    users`), dev's realms on the integration feed (read as DEV_BACKEND, which the server's
    config must have), and the registrations the server counted."""
    return {
        "users": cli_users(server),
        "realms": sorted(feed_realms(server, DEV_BACKEND)),
        "registrations": registrations(server),
    }


def user_id_by_email(server: FieldpassServer, admin_token: str, email: str) -> str:
    """The id of the user with `email`, as their environment's admin sees it."""
    users = assert_json(server.api("GET", "/admin/users", token=admin_token))["users"]
    (user_id,) = [user["id"] for user in users if user["email"] == email]
    return user_id


def directory_view(server: FieldpassServer, admin_token: str, *, of_users: Sequence[str] = ()) -> dict[str, Any]:
    """What the admin holding `admin_token` sees of their environment: its users (role,
    binding, disabled), teams and newest audit entries, and the permissions and devices of
    the users `of_users`."""

    def read(path: str, **params: str) -> Any:
        return assert_json(server.api("GET", path, token=admin_token, params=params or None))

    view: dict[str, Any] = {
        "users": sorted(read("/admin/users")["users"], key=lambda user: user["id"]),
        "teams": sorted(read("/admin/teams")["teams"], key=lambda team: team["id"]),
        "audit": read("/admin/audit", limit="100")["entries"],
    }
    for user_id in of_users:
        view[f"permissions of {user_id}"] = read(f"/admin/users/{user_id}/permissions")
        view[f"devices of {user_id}"] = read(f"/admin/users/{user_id}/devices")["devices"]
    return view
