"""The `FieldpassDevice` example of Docs/app.md runs as written, and the library needs Foundation
and swift-crypto only.

The Swift block after the `<!-- library-example -->` marker is taken from that page, its two
lines a reader changes (the server's URL and the worker's email) set, and nothing else
changed. It is compiled with `swiftc` and linked with the objects of the library and of
swift-crypto's `Crypto` the suite's binary was linked with, and nothing of the server, then run as a person runs it in a terminal, with a home folder of its own
(where its token file goes): through the whole sign-in against the suite's server and IdP, and
into the errors of its table a person meets first.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from helpers import (
    ACCESS_TOKEN_TTL,
    FieldpassServer,
    WatchedCommand,
    browser_login,
    cli_devices,
    cli_output,
    describe,
    free_port,
    is_html,
    new_browser,
    open_confirmation,
    unique_email,
)
from helpers.swift_examples import app_page_blocks, build_swift_example, run_swift_example, with_line_set

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "Sources" / "FieldpassDevice"

# The lines a reader changes, as the page shows them, and how each is written with another value.
URL_LINE = 'let url = URL(string: "http://127.0.0.1:8080")!'
EMAIL_LINE = 'let email = "ada@example.com"'

SHOW = re.compile(r"Show ([A-Z]{4}-[A-Z]{4}), open (\S+)")
REALM = re.compile(r"realm (/users/[A-Za-z0-9._~:-]+) exists; waiting for its data")
SIGNED_IN = re.compile(r"signed in; the access token expires at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \+0000")
# Eight characters of the token and no more: the example never prints a secret.
BEARER = re.compile(r"Authorization: Bearer [A-Za-z0-9_-]{8}…")
# The folder the example keeps its tokens in, below $XDG_DATA_HOME.
APP_FOLDER = "com.acme.fieldapp"


def readme_example() -> str:
    return app_page_blocks("library-example")[0]


def example_for(url: str, email: str) -> str:
    """The example with the reader's two lines set to `url` and `email`."""
    source = with_line_set(readme_example(), URL_LINE, URL_LINE.replace("http://127.0.0.1:8080", url))
    return with_line_set(source, EMAIL_LINE, EMAIL_LINE.replace("ada@example.com", email))


def build_example(fieldpass_bin: Path, folder: Path, url: str, email: str) -> Path:
    """The example, compiled and linked against the library as built beside `fieldpass_bin`."""
    return build_swift_example(fieldpass_bin, folder, example_for(url, email))


def home_of_its_own(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    return home


def run_example(binary: Path, home: Path, log_dir: Path) -> WatchedCommand:
    """The example in a terminal, with a home folder of its own (its token folder the test's)."""
    return run_swift_example(binary, home, log_dir)


@pytest.fixture
def examples() -> Iterator[list[WatchedCommand]]:
    """The examples a test runs, killed after it if still running."""
    started: list[WatchedCommand] = []
    yield started
    for example in started:
        example.kill()


def run_to_the_end(examples: list[WatchedCommand], binary: Path, tmp_path: Path) -> list[str]:
    """What the example prints, once it has exited 0."""
    examples.append(run_example(binary, home_of_its_own(tmp_path), tmp_path))
    status = examples[-1].wait_exit()
    assert status == 0, f"the example exited with {status}\n{examples[-1].output()}"
    return examples[-1].lines


def test_the_app_example_signs_in_opens_the_realm_and_signs_out(
    server: FieldpassServer, fieldpass_bin: Path, email: str, tmp_path: Path, examples: list[WatchedCommand]
) -> None:
    binary = build_example(fieldpass_bin, tmp_path / "app", server.public_url, email)
    home = home_of_its_own(tmp_path)
    examples.append(example := run_example(binary, home, tmp_path))

    show = SHOW.fullmatch(example.wait_for_line(lambda line: line.startswith("Show "), "'Show <code>, open <url>' line"))
    assert show, example.output()
    code, login_url = show.groups()
    # The worker compares the app's code with the confirmation page's, then signs in.
    with new_browser() as browser:
        assert open_confirmation(login_url, browser).user_code == code
        callback = browser_login(login_url, email, browser=browser)
    assert callback.status_code == 200 and is_html(callback), describe(callback)
    signed_in_at = datetime.now(timezone.utc)

    realm = REALM.fullmatch(example.wait_for_line(lambda line: line.startswith("realm "), "realm line"))
    assert realm, example.output()
    realm_path = realm.group(1)
    # The company's backend fills the realm.
    result = server.mark_initialized(realm_path)
    assert result.returncode == 0, cli_output(result)

    status = example.wait_exit()
    assert status == 0, f"the example exited with {status}\n{example.output()}"
    lines = example.lines
    assert len(lines) == 5, example.output()
    assert lines[0] == show.group(0)
    expiry = SIGNED_IN.fullmatch(lines[1])
    assert expiry, example.output()
    expires_at = datetime.strptime(expiry.group(1), "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
    assert abs(expires_at - (signed_in_at + timedelta(seconds=ACCESS_TOKEN_TTL))) < timedelta(seconds=30), lines[1]
    assert lines[2:4] == [realm.group(0), f"open {realm_path} with the sync server"], example.output()
    assert BEARER.fullmatch(lines[4]), example.output()

    # signOut revoked the refresh token, and with it the device, its only one.
    assert list(cli_devices(server, email).values()) == ["revoked"], cli_devices(server, email)
    # The token folder was the test's own: the tokens cleared, the installation id kept.
    folder = home / ".local/share" / APP_FOLDER
    assert sorted(path.name for path in folder.iterdir()) == ["tokens.json.installation"], list(folder.iterdir())
    assert folder.stat().st_mode & 0o777 == 0o700


def test_the_app_example_says_which_email_domain_fieldpass_does_not_know(
    server: FieldpassServer, fieldpass_bin: Path, tmp_path: Path, examples: list[WatchedCommand]
) -> None:
    email = unique_email(domain="unknown-company.test")
    binary = build_example(fieldpass_bin, tmp_path / "app", server.public_url, email)
    lines = run_to_the_end(examples, binary, tmp_path)
    assert len(lines) == 1 and re.fullmatch(r"Fieldpass refused \(404 unknown_domain\): \S.*", lines[0]), lines


@pytest.mark.store_independent
def test_the_app_example_says_so_when_fieldpass_cannot_be_reached(
    fieldpass_bin: Path, tmp_path: Path, examples: list[WatchedCommand]
) -> None:
    # A reader who forgot `make run`: nothing listens on the port.
    binary = build_example(fieldpass_bin, tmp_path / "app", f"http://127.0.0.1:{free_port()}", unique_email())
    lines = run_to_the_end(examples, binary, tmp_path)
    assert len(lines) == 1 and re.fullmatch(r"no network: \S+", lines[0]), lines


@pytest.mark.store_independent
def test_the_library_imports_foundation_and_swift_crypto_only() -> None:
    imports = {
        match.group(1)
        for file in LIBRARY.glob("*.swift")
        for match in re.finditer(r"^\s*(?:public |internal |@preconcurrency )*import (\w+)", file.read_text(encoding="utf-8"), re.MULTILINE)
    }
    # FoundationNetworking is Foundation's URLSession on Linux; Crypto is swift-crypto, the DPoP
    # key's P-256 (CryptoKit on Apple platforms); CryptoExtras is swift-crypto's too, the offline
    # PIN verifier's scrypt and RSA permits' signatures.
    assert imports and imports <= {"Foundation", "FoundationNetworking", "Crypto", "CryptoExtras"}, imports
