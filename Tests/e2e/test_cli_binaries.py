"""The two executables: `fieldpass` serves and hands the device commands (`onboard`, `tablet`)
to `fieldpass-device` beside it, so that the server never maps the app library's HTTP stack."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from helpers import FieldpassServer, clean_env, cli_output

# What the app library's URLSession brings on Linux: FoundationNetworking, libcurl and, through
# it, GnuTLS, Kerberos and LDAP.
HTTP_CLIENT_LIBRARIES = ("libFoundationNetworking.so", "libcurl.so", "libgnutls.so", "libkrb5.so", "libldap")


def run(binary: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, env=clean_env(), timeout=60)


def test_a_serving_instance_maps_no_http_client_library(server: FieldpassServer) -> None:
    assert server.process is not None
    maps = Path(f"/proc/{server.process.proc.pid}/maps").read_text()
    mapped = sorted({line.split()[-1] for line in maps.splitlines() if "/" in line})
    assert any("libFoundationEssentials.so" in path for path in mapped), "not the server's maps"
    loaded = [path for path in mapped if any(name in path for name in HTTP_CLIENT_LIBRARIES)]
    assert loaded == [], f"the server maps an HTTP client it never uses: {loaded}"


def test_the_device_commands_are_handed_over_with_their_arguments(fieldpass_bin: Path) -> None:
    listing = run(fieldpass_bin, "--help")
    assert listing.returncode == 0, cli_output(listing)
    assert "onboard" in listing.stdout and "tablet" in listing.stdout, listing.stdout

    # Help of a subcommand, given after it: only fieldpass-device knows it.
    help_text = run(fieldpass_bin, "tablet", "sign-in", "--help")
    assert help_text.returncode == 0, cli_output(help_text)
    assert "USAGE: fieldpass tablet sign-in" in help_text.stdout, help_text.stdout
    assert "--offline" in help_text.stdout, help_text.stdout
    asked = run(fieldpass_bin, "help", "tablet", "sign-in")
    assert asked.returncode == 0 and asked.stdout == help_text.stdout, cli_output(asked)

    # A mistake in the handed-over arguments is fieldpass-device's to report.
    wrong = run(fieldpass_bin, "onboard", "ada@example.com", "--no-such-option")
    assert wrong.returncode == 64, cli_output(wrong)
    assert "Unknown option '--no-such-option'" in wrong.stderr, wrong.stderr


def test_without_fieldpass_device_beside_it_the_device_commands_say_so(fieldpass_bin: Path, tmp_path: Path) -> None:
    alone = tmp_path / "fieldpass"
    try:
        os.link(fieldpass_bin.resolve(), alone)
    except OSError:
        shutil.copy2(fieldpass_bin.resolve(), alone)
    result = run(alone, "tablet", "status")
    assert result.returncode == 1, cli_output(result)
    assert f"Error: cannot run {tmp_path / 'fieldpass-device'}: No such file or directory" in result.stderr, result.stderr
    # The server's own commands need nothing beside it.
    assert run(alone, "keys", "--help").returncode == 0
