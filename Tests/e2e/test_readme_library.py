"""The `FieldpassDevice` example of Docs/app.md compiles as written, and the library stays Foundation-only.

The Swift block after the `<!-- library-example -->` marker is extracted from that page and
compiled with `swiftc` against the library module the suite's binary was built with. Its flow
is run for real by the library's own tests (Tests/FieldpassDeviceTests) and by
`fieldpass onboard`, which is built on it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "Docs" / "app.md"
LIBRARY = ROOT / "Sources" / "FieldpassDevice"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- library-example -->\s*```swift\n(.*?)\n```", text, re.DOTALL)
    assert match, "Docs/app.md has no library example after its marker"
    return match.group(1)


def swiftc() -> str:
    found = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"
    assert Path(found).exists(), "no swiftc on PATH or in /opt/swift"
    return found


@pytest.mark.store_independent
def test_the_readme_library_example_compiles(fieldpass_bin: Path, tmp_path: Path) -> None:
    modules = fieldpass_bin.parent / "Modules"
    assert (modules / "FieldpassDevice.swiftmodule").exists(), f"FieldpassDevice was not built beside {fieldpass_bin}"
    source = tmp_path / "main.swift"
    source.write_text(readme_example() + "\n", encoding="utf-8")
    result = subprocess.run(
        [swiftc(), "-c", str(source), "-module-name", "ReadmeExample", "-I", str(modules), "-o", str(tmp_path / "main.o")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"the example of Docs/app.md does not compile:\n{result.stderr}"
    assert (tmp_path / "main.o").stat().st_size > 0


@pytest.mark.store_independent
def test_the_library_imports_foundation_only() -> None:
    imports = {
        match.group(1)
        for file in LIBRARY.glob("*.swift")
        for match in re.finditer(r"^\s*(?:public |internal |@preconcurrency )*import (\w+)", file.read_text(encoding="utf-8"), re.MULTILINE)
    }
    # FoundationNetworking is Foundation's URLSession on Linux.
    assert imports and imports <= {"Foundation", "FoundationNetworking"}, imports
