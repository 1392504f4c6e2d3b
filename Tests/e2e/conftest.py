"""Fixtures for the Fieldpass end-to-end suite.

The suite drives the real `fieldpass` binary (FIELDPASS_BIN, default
.build/debug/fieldpass) against a real OpenID Connect provider
(oidc-provider-mock), all on 127.0.0.1 with free ports.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import helpers  # noqa: E402
from helpers import ADMIN_EMAIL, Browser, FieldpassServer, MockIdP, SignedIn, sign_in  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]
TEST_DEADLINE = 60  # seconds per test, on top of the timeouts of each wait


def pytest_configure(config: pytest.Config) -> None:
    """The store the suite runs on must be usable: a missing PostgreSQL server fails the
    session at once (it is never a reason to skip). Registers the postgres_only and
    store_independent markers."""
    problem = helpers.store_problem()
    if problem is not None:
        raise pytest.UsageError(problem)
    config.addinivalue_line(
        "markers", "postgres_only: runs only with FIELDPASS_E2E_STORE=postgres (deselected on SQLite)"
    )
    config.addinivalue_line(
        "markers",
        "store_independent: touches no store of the pass (`make run`, which always uses SQLite, or the "
        "compiler), or checks only what no store shapes (the console's layout and accessibility): runs in "
        "the SQLite pass, deselected on PostgreSQL, where it would only repeat itself",
    )


def pytest_report_header(config: pytest.Config) -> str:
    return f"fieldpass e2e store: {helpers.store_kind()}"


_deselected_for_store: list[str] = []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests of several instances on one database (postgres_only) are deselected, not
    skipped, on SQLite: they run in the suite's PostgreSQL pass. Tests that touch no store
    of the pass (store_independent) run in the SQLite pass only."""
    other_pass_marker = "store_independent" if helpers.store_kind() == "postgres" else "postgres_only"
    deselected = [item for item in items if item.get_closest_marker(other_pass_marker)]
    if deselected:
        items[:] = [item for item in items if not item.get_closest_marker(other_pass_marker)]
        config.hook.pytest_deselected(items=deselected)
        _deselected_for_store.extend(item.nodeid for item in deselected)


@pytest.fixture(scope="session")
def fieldpass_bin() -> Path:
    binary = Path(os.environ.get("FIELDPASS_BIN", REPO_ROOT / ".build/debug/fieldpass"))
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        pytest.fail(f"fieldpass binary not found at {binary} (run `make build`, or set FIELDPASS_BIN)")
    return binary


@pytest.fixture(scope="session")
def idp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MockIdP]:
    provider = helpers.start_idp(sys.executable, tmp_path_factory.mktemp("idp"))
    yield provider
    provider.stop()


def _serve(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory, name: str,
    extra_env: dict[str, str] | None = None, **options: Any,
) -> Iterator[FieldpassServer]:
    """A server in its own folder, stopped when the fixture's scope ends."""
    with helpers.running_server(fieldpass_bin, idp, tmp_path_factory.mktemp(name), extra_env, **options) as srv:
        yield srv


@pytest.fixture(scope="session")
def server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """The shared server; tests use their own unique emails."""
    yield from _serve(fieldpass_bin, idp, tmp_path_factory, "server")


@pytest.fixture(scope="module")
def short_ttl_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """A server whose sessions expire after 2 s (configured through the environment)."""
    yield from _serve(
        fieldpass_bin, idp, tmp_path_factory, "server-short-ttl", {"SESSIONS_TTL": "2", "SESSIONS_SWEEP_INTERVAL": "1"}
    )


@pytest.fixture(scope="module")
def quiet_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """A server used by one module only, so that its users, realms and registrations change
    only through it; with the environments of `directory_server`, for their service accounts."""
    yield from _serve(fieldpass_bin, idp, tmp_path_factory, "server-quiet", environments=helpers.DIRECTORY_ENVIRONMENTS)


@pytest.fixture(scope="module")
def directory_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """A server per module with two environments (dev: example.com, other: other.test),
    each with a bootstrap admin and a service account (helpers.DIRECTORY_ENVIRONMENTS)."""
    yield from _serve(
        fieldpass_bin, idp, tmp_path_factory, "server-directory", environments=helpers.DIRECTORY_ENVIRONMENTS
    )


@pytest.fixture(scope="module")
def admin(directory_server: FieldpassServer) -> SignedIn:
    """dev's bootstrap admin on the module's directory server, signed in for the first time
    (the API checks the stored role, which is admin from then on)."""
    return sign_in(directory_server, ADMIN_EMAIL)


@pytest.fixture
def email() -> str:
    return helpers.unique_email()


@pytest.fixture
def browsers() -> Iterator[Callable[..., Browser]]:
    """Starts headless Chromiums, one per person: `browsers()`, or `browsers(phone=True)` for
    a 360 px wide phone screen; `network_log=True` keeps the redirects each was sent. Each
    has its own profile and cookies; all quit after the test."""
    started: list[Browser] = []

    def start(*, phone: bool = False, network_log: bool = False) -> Browser:
        started.append(Browser(phone=phone, network_log=network_log))
        return started[-1]

    yield start
    errors = []
    for browser in started:
        try:
            browser.quit()
        except Exception as error:  # quit the others all the same
            errors.append(error)
    if errors:
        raise errors[0]


@pytest.fixture
def browser(browsers: Callable[..., Browser]) -> Browser:
    """One person's headless Chromium (a 1280 x 900 screen), quit after the test."""
    return browsers()


class DeadlineExceeded(Exception):
    pass


@pytest.fixture(autouse=True)
def _test_deadline() -> Iterator[None]:
    """Fail a test that runs longer than TEST_DEADLINE seconds."""

    def expire(signum: int, frame: object) -> None:
        raise DeadlineExceeded(f"test ran longer than {TEST_DEADLINE} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, TEST_DEADLINE)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.failed:
        for process in list(helpers.RUNNING):
            report.sections.append((f"log tail: {process.name}", process.log_tail()))
        for number, browser in enumerate(list(helpers.OPEN_BROWSERS), 1):
            report.sections.append((f"browser {number}", browser.describe()))
    return report


# A skipped (or xfailed) end-to-end test must not pass as green: it fails the run.
_not_run: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped:
        _not_run.append(report.nodeid)


def pytest_terminal_summary(terminalreporter) -> None:
    for line in helpers.BENCHMARK_LINES:
        terminalreporter.write_line(f"benchmark: {line}")
    if _deselected_for_store:
        other = "sqlite" if helpers.store_kind() == "postgres" else "postgres"
        terminalreporter.write_line(
            f"{len(_deselected_for_store)} test(s) of the other pass deselected: the store is "
            f"{helpers.store_kind()}; they run with FIELDPASS_E2E_STORE={other}"
        )
    if _not_run:
        terminalreporter.write_line(
            f"{len(_not_run)} test(s) did not run; that fails the end-to-end suite:", red=True
        )
        for nodeid in _not_run:
            terminalreporter.write_line(f"  {nodeid}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    helpers.drop_leftover_databases()
    if _not_run and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
