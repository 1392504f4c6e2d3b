"""scripts/startup-order-functions.py, which turns callgrind profiles of a start into the list of
functions lld puts side by side (Linker/startup-order.txt), on profiles written as callgrind
writes them: names compressed to numbers after their first use, calls into other objects,
functions named by address where valgrind read no symbol."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "startup-order-functions.py"

SYMBOLS = """\
0000000000001000 $s9Fieldpass5startyyF
0000000000001040 $s9Fieldpass5readyyyF
0000000000001100 $s4GRDB4openyyF
0000000000001200 main
"""

# The start: main calls start (ours) and strlen (libc's); a second block of main's costs uses
# the numbers alone; open is named by an address inside it.
SQLITE_PROFILE = """\
version: 1
creator: callgrind-3.19.0
cmd: /tmp/x/fieldpass serve
events: Ir
ob=(1) /tmp/x/fieldpass
fl=(1) ???
fn=(1) main
0x1200 3
cob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
cfn=(2) strlen
calls=1 0x0
0x1204 9
cob=(1)
cfn=(3) $s9Fieldpass5startyyF
calls=1 0x1000
0x1208 40
ob=(2)
fn=(2)
0x20 9
ob=(1)
fn=(3)
0x1000 40
fn=(4) 0x0000000000001108
0x1108 5
fn=(1)
0x1210 2
"""

# PostgreSQL's start adds ready, and repeats what SQLite's ran.
POSTGRES_PROFILE = """\
version: 1
events: Ir
ob=(1) /tmp/y/fieldpass
fn=(1) main
0x1200 3
fn=(2) $s9Fieldpass5readyyyF'2
0x1040 7
fn=(3) $s9Fieldpass5startyyF
0x1000 40
"""


def test_functions_are_listed_once_in_the_order_the_profiles_first_run_them(tmp_path: Path) -> None:
    symbols = tmp_path / "symbols"
    symbols.write_text(SYMBOLS)
    sqlite = tmp_path / "sqlite.callgrind"
    sqlite.write_text(SQLITE_PROFILE)
    postgres = tmp_path / "postgres.callgrind"
    postgres.write_text(POSTGRES_PROFILE)

    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(symbols), str(sqlite), str(postgres)], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "main",
        "$s9Fieldpass5startyyF",
        "$s4GRDB4openyyF",  # named by an address inside it
        "$s9Fieldpass5readyyyF",  # callgrind's '2 (a second context) dropped
    ], "libc's strlen is not the binary's, and nothing is listed twice"


def test_the_linker_is_given_the_committed_list() -> None:
    listed = (REPO / "Linker" / "startup-order.txt").read_text().splitlines()
    assert len(listed) > 1000 and len(set(listed)) == len(listed), "make startup-order writes each function once"
    assert any(name.startswith("$s12FieldpassCLI12ServeCommandV") for name in listed), "serve's own start is not in the list"
    assert "Linker/startup-order.txt" in (REPO / "Package.swift").read_text()
