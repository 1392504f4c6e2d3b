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

import os
import re
import shutil
import subprocess
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

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "Docs" / "app.md"
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
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- library-example -->\s*```swift\n(.*?)\n```", text, re.DOTALL)
    assert match, "Docs/app.md has no library example after its marker"
    return match.group(1)


def example_for(url: str, email: str) -> str:
    """The example with the reader's two lines set to `url` and `email`; fails when the page
    does not have each line exactly once, as the test would otherwise run something else."""
    lines = readme_example().splitlines()
    for line, written in (
        (URL_LINE, URL_LINE.replace("http://127.0.0.1:8080", url)),
        (EMAIL_LINE, EMAIL_LINE.replace("ada@example.com", email)),
    ):
        found = [number for number, text in enumerate(lines) if text == line]
        if len(found) != 1:
            pytest.fail(
                f"Docs/app.md's example has the line {line!r} {len(found)} time(s), not once: it is the "
                "line a reader changes, and the only one this test changes"
            )
        lines[found[0]] = written
    return "\n".join(lines) + "\n"


def swiftc() -> str:
    found = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"
    assert Path(found).exists(), "no swiftc on PATH or in /opt/swift"
    return found


# The library's target and those of swift-crypto's `Crypto` product (its P-256 and SHA-256), by
# their build folders: what an app links. swift-crypto 4's graph; a newer one that adds a target
# shows here as an undefined reference when the example is linked.
LIBRARY_TARGETS = ("FieldpassDevice", "Crypto", "CryptoBoringWrapper", "CCryptoBoringSSL", "CCryptoBoringSSLShims", "CXKCP", "CXKCPShims")


def library_objects(fieldpass_bin: Path) -> list[str]:
    """The objects of FieldpassDevice and of the swift-crypto targets it builds on, as the binary
    under test was linked from them (SwiftPM's link list for the `fieldpass` product): exactly
    the library as built, no stale object beside it, and nothing of the server."""
    link_list = fieldpass_bin.parent / f"{fieldpass_bin.name}.product" / "Objects.LinkFileList"
    assert link_list.is_file(), f"no SwiftPM link list at {link_list}: was {fieldpass_bin} built by `swift build`?"
    folders = tuple(f"/{target}.build/" for target in LIBRARY_TARGETS)
    objects = [
        line.strip().strip('"')
        for line in link_list.read_text().splitlines()
        if any(folder in line for folder in folders) and line.strip().strip('"').endswith(".o")
    ]
    assert any("/FieldpassDevice.build/" in line for line in objects), f"{link_list} names no FieldpassDevice object"
    return objects


def build_example(fieldpass_bin: Path, folder: Path, url: str, email: str) -> Path:
    """The example, compiled and linked against the library as built beside `fieldpass_bin`."""
    modules = fieldpass_bin.parent / "Modules"
    assert (modules / "FieldpassDevice.swiftmodule").exists(), f"FieldpassDevice was not built beside {fieldpass_bin}"
    folder.mkdir()
    source = folder / "main.swift"
    source.write_text(example_for(url, email), encoding="utf-8")
    binary = folder / "FieldApp"
    result = subprocess.run(
        # BoringSSL, below swift-crypto, is partly C++.
        [swiftc(), str(source), "-module-name", "FieldApp", "-I", str(modules), *library_objects(fieldpass_bin),
         "-lstdc++", "-o", str(binary)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"the example of Docs/app.md does not build:\n{cli_output(result)}"
    return binary


def home_of_its_own(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    return home


def run_example(binary: Path, home: Path, log_dir: Path) -> WatchedCommand:
    """The example in a terminal, with `home` as its HOME (and $XDG_DATA_HOME below it), so that
    its token folder is the test's own."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share")}
    return WatchedCommand("example", [str(binary)], env, log_dir, terminal=True)


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
    # key's P-256 (CryptoKit on Apple platforms).
    assert imports and imports <= {"Foundation", "FoundationNetworking", "Crypto"}, imports
