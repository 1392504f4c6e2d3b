"""The Swift examples of Docs/app.md, built as an app builds them: compiled with `swiftc` and
linked with the objects of `FieldpassDevice` and of swift-crypto's `Crypto` and `CryptoExtras`
that the suite's binary was linked with, and nothing of the server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .processes import WatchedCommand, cli_output

APP_PAGE = Path(__file__).resolve().parents[3] / "Docs" / "app.md"

# The library's target and those of swift-crypto's `Crypto` product (its P-256 and SHA-256) and
# `CryptoExtras` (scrypt and RSA for offline permits, with swift-asn1), by their build folders:
# what an app links. swift-crypto 4's graph; a newer one that adds a target shows here as an
# undefined reference when the example is linked.
LIBRARY_TARGETS = (
    "FieldpassDevice", "Crypto", "CryptoExtras", "SwiftASN1", "CryptoBoringWrapper", "CCryptoBoringSSL", "CCryptoBoringSSLShims",
    "CXKCP", "CXKCPShims",
)


def app_page_blocks(marker: str) -> list[str]:
    """The Swift blocks of Docs/app.md that follow `<!-- marker -->`, in the page's order."""
    blocks = re.findall(rf"<!-- {re.escape(marker)} -->\s*```swift\n(.*?)\n```", APP_PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks, f"Docs/app.md has no Swift block after a <!-- {marker} --> marker"
    return blocks


def with_line_set(source: str, line: str, written: str) -> str:
    """`source` with its one `line` replaced by `written`: the line a reader changes, and the only
    one a test changes; fails when the page does not have it exactly once."""
    lines = source.splitlines()
    found = [number for number, text in enumerate(lines) if text == line]
    if len(found) != 1:
        pytest.fail(
            f"Docs/app.md's example has the line {line!r} {len(found)} time(s), not once: it is a line a reader "
            "changes, and the only kind a test changes"
        )
    lines[found[0]] = written
    return "\n".join(lines) + "\n"


def swiftc() -> str:
    found = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"
    assert Path(found).exists(), "no swiftc on PATH or in /opt/swift"
    return found


def library_objects(fieldpass_bin: Path) -> list[str]:
    """The objects of FieldpassDevice and of the swift-crypto targets it builds on, as
    `fieldpass-device` beside the binary under test was linked from them (SwiftPM's link list
    for that product, which `fieldpass onboard` and `fieldpass tablet` run): exactly the library
    as built, no stale object beside it, and nothing of the server."""
    link_list = fieldpass_bin.parent / "fieldpass-device.product" / "Objects.LinkFileList"
    assert link_list.is_file(), f"no SwiftPM link list at {link_list}: was {fieldpass_bin} built by `swift build`?"
    folders = tuple(f"/{target}.build/" for target in LIBRARY_TARGETS)
    objects = [
        line.strip().strip('"')
        for line in link_list.read_text().splitlines()
        if any(folder in line for folder in folders) and line.strip().strip('"').endswith(".o")
    ]
    assert any("/FieldpassDevice.build/" in line for line in objects), f"{link_list} names no FieldpassDevice object"
    return objects


def build_swift_example(fieldpass_bin: Path, folder: Path, source: str) -> Path:
    """`source` as an app's `main.swift`, compiled and linked against the library as built beside
    `fieldpass_bin`, in `folder` (made here)."""
    modules = fieldpass_bin.parent / "Modules"
    assert (modules / "FieldpassDevice.swiftmodule").exists(), f"FieldpassDevice was not built beside {fieldpass_bin}"
    folder.mkdir()
    main = folder / "main.swift"
    main.write_text(source, encoding="utf-8")
    binary = folder / "FieldApp"
    result = subprocess.run(
        # BoringSSL, below swift-crypto, is partly C++.
        [swiftc(), str(main), "-module-name", "FieldApp", "-I", str(modules), *library_objects(fieldpass_bin),
         "-lstdc++", "-o", str(binary)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"the example of Docs/app.md does not build:\n{cli_output(result)}"
    return binary


def run_swift_example(binary: Path, home: Path, log_dir: Path, *, answers: bool = False) -> WatchedCommand:
    """The example in a terminal, with `home` as its HOME (and $XDG_DATA_HOME below it), so that
    its folder is the test's own; with `answers`, the test types what it asks for."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share")}
    return WatchedCommand("example", [str(binary)], env, log_dir, terminal=True, answers=answers)
