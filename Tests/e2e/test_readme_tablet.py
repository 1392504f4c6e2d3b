"""A shared tablet against `make run`, as the README shows it: its "Try a shared tablet", run as
written.

`make run` is started from the checkout as a reader starts it (on ports, keys, a database and a
home folder of its own). The README's five commands are taken from its section and run in the
checkout, each as typed, with only the values a reader copies from one command's output into the
next (the code, the badge, the temporary PIN) set to what the command before really printed; each
line the README shows of a command's output must be one it printed (`…` standing for what
differs from run to run).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from helpers import cli_output, http_client
from helpers.local_run import REPO, LocalRun, serving_make_run

pytestmark = pytest.mark.store_independent

README = REPO / "README.md"
SECTION = "## Try a shared tablet"
# What one command prints and a later one is given: the README shows a sample of each.
CARRIED = (
    re.compile(r"Enrollment code, shown this once: (\S+)"),
    re.compile(r"temporary PIN (\d+)"),
    re.compile(r"Badge, shown this once: (\S+)"),
)


@dataclass
class Step:
    """One command of the walkthrough and the lines of its output the README shows."""

    command: str
    shown: list[str]


def walkthrough() -> list[Step]:
    """The section's commands, each a ```sh block of one line, and the output block after each."""
    text = README.read_text(encoding="utf-8")
    assert SECTION in text, f"README.md has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(sh)?\n(.*?)\n```", section, re.DOTALL)
    steps: list[Step] = []
    for (kind, body), (next_kind, next_body) in zip(blocks, blocks[1:] + [("sh", "")]):
        if kind == "sh":
            assert len(body.splitlines()) == 1, f"a walkthrough command is one line: {body!r}"
            assert not next_kind, f"README: no output shown after `{body}`"
            steps.append(Step(body, next_body.splitlines()))
    return steps


def shown_line(line: str) -> re.Pattern[str]:
    """A line the README shows, `…` standing for anything."""
    return re.compile(".*".join(re.escape(part) for part in line.split("…")))


def assert_shows(shown: list[str], printed: str, command: str) -> None:
    """Each line shown is a line printed, in the same order."""
    lines = iter(printed.splitlines())
    for line in shown:
        pattern = shown_line(line)
        assert any(pattern.fullmatch(printed_line) for printed_line in lines), (
            f"README shows {line!r} after `{command}`, which printed (in order) no such line:\n{printed}")


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRun]:
    with serving_make_run(tmp_path_factory.mktemp("make-run")) as run:
        yield run


def test_the_readme_tablet_walkthrough_runs_as_written(local_run: LocalRun) -> None:
    steps = walkthrough()
    assert len(steps) == 5, [step.command for step in steps]
    # Alice is known from the walkthrough before: her device registered.
    with http_client() as client:
        assert client.post(f"{local_run.url}/register_device", json={"email": "alice@example.com"}).status_code == 201

    carried: dict[str, str] = {}
    used: set[str] = set()
    for step in steps:
        command = step.command
        for sample, value in carried.items():
            if sample in command:
                command = command.replace(sample, value)
                used.add(sample)
        result = local_run.shell(command)
        assert result.returncode == 0, f"`{command}`\n{cli_output(result)}"
        shown = step.shown
        for pattern in CARRIED:
            sample = next((match.group(1) for line in shown if (match := pattern.search(line))), None)
            value = pattern.search(result.stdout)
            if sample:
                assert value, f"`{command}` printed no {pattern.pattern!r}\n{cli_output(result)}"
                carried[sample] = value.group(1)
                shown = [line.replace(sample, value.group(1)) for line in shown]
        assert_shows(shown, result.stdout, command)
    assert used == set(carried), f"the README shows {set(carried) - used} but no command after it uses it"

    # The tablet kept its key, and only the key, as the README says: the shift's tokens are gone.
    folder = local_run.home / ".local/share/fieldpass/tablet"
    assert sorted(path.name for path in folder.iterdir()) == ["device-key.pem"], list(folder.iterdir())
    assert (folder / "device-key.pem").stat().st_mode & 0o777 == 0o600
    assert folder.stat().st_mode & 0o777 == 0o700
    listed = local_run.fieldpass("shared-devices", "list")
    assert re.search(r"  enrolled +Van 12$", listed.stdout, re.M), cli_output(listed)
