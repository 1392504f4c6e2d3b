"""A shared tablet against `make run`, as the pages show it: the README's "Try a shared tablet"
and the tablet program of Docs/app.md's "Shared devices", each run as written.

`make run` is started from the checkout as a reader starts it (on ports, keys, a database and a
home folder of its own). The README's seven commands are taken from its section and run in the
checkout, each as typed, with only the values a reader copies from one command's output into the
next (the code, the badge, the temporary PIN) set to what the command before really printed; each
line the README shows of a command's output must be one it printed (`…` standing for what
differs from run to run). Docs/app.md's tablet blocks, in order, are one program: it is built with
only its `url` line changed, and run in a terminal, the test answering its questions (a code, an
email, a badge and PINs), signing in at the development IdP, filling the realm and at last
unenrolling the tablet, which the program's follower hears.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import WatchedCommand, browser_login, cli_output, describe, http_client, unique_email
from helpers.local_run import REPO, LocalRun, serving_make_run
from helpers.swift_examples import app_page_blocks, build_swift_example, run_swift_example, with_line_set

pytestmark = pytest.mark.store_independent

README = REPO / "README.md"
SECTION = "## Try a shared tablet"
# What one command prints and a later one is given: the README shows a sample of each.
CARRIED = (
    re.compile(r"Enrollment code, shown this once: (\S+)"),
    re.compile(r"temporary PIN (\d+)"),
    re.compile(r"Badge, shown this once: (\S+)"),
)
URL_LINE = 'let url = URL(string: "http://127.0.0.1:8080")!'
NEW_PIN = "38472910"


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


def carried_badge(carried: dict[str, str]) -> str:
    """The badge the walkthrough's commands were given."""
    return next(value for value in carried.values() if value.startswith("fpb_"))


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRun]:
    with serving_make_run(tmp_path_factory.mktemp("make-run")) as run:
        yield run


def test_the_readme_tablet_walkthrough_runs_as_written(local_run: LocalRun) -> None:
    steps = walkthrough()
    assert len(steps) == 7, [step.command for step in steps]
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

    # The tablet kept its key and Alice's offline permit, as the README says: the shift's tokens
    # are gone, and the permit file holds neither her badge nor her PIN.
    folder = local_run.home / ".local/share/fieldpass/tablet"
    assert sorted(path.name for path in folder.iterdir()) == ["device-key.pem", "offline.json"], list(folder.iterdir())
    for name in ("device-key.pem", "offline.json"):
        assert (folder / name).stat().st_mode & 0o777 == 0o600, name
    kept = (folder / "offline.json").read_text()
    assert '"permits"' in kept and NEW_PIN not in kept and carried_badge(carried) not in kept, kept
    assert folder.stat().st_mode & 0o777 == 0o700
    listed = local_run.fieldpass("shared-devices", "list")
    assert re.search(r"  enrolled +Van 12$", listed.stdout, re.M), cli_output(listed)


@pytest.fixture(scope="module")
def tablet_program(fieldpass_bin: Path, local_run: LocalRun, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Docs/app.md's tablet blocks, in order, as one app's main.swift: only its `url` line set."""
    source = "\n".join(app_page_blocks("tablet-example"))
    source = with_line_set(source, URL_LINE, URL_LINE.replace("http://127.0.0.1:8080", local_run.url))
    return build_swift_example(fieldpass_bin, tmp_path_factory.mktemp("tablet-app") / "app", source)


@pytest.fixture
def program(tablet_program: Path, tmp_path: Path) -> Iterator[WatchedCommand]:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    started = run_swift_example(tablet_program, home, tmp_path, answers=True)
    yield started
    started.kill()


def answer(program: WatchedCommand, question: str, value: str) -> None:
    program.wait_for_line(lambda line: line == question, repr(question))
    program.answer(value)


def test_the_app_pages_tablet_runs_against_make_run(local_run: LocalRun, program: WatchedCommand) -> None:
    email = unique_email("crew")
    # The README's walkthrough on this same make run enrolled "Van 12": a name is one device's.
    enrolled = local_run.fieldpass("shared-devices", "enroll", "--name", "Van 14")
    match = re.search(r"^Van 14 \((\S+)\) .*\nEnrollment code, shown this once: (\S+)$", enrolled.stdout, re.M)
    assert enrolled.returncode == 0 and match, cli_output(enrolled)
    device_id, code = match.groups()
    answer(program, "Enrollment code:", code)
    program.wait_for_line(lambda line: line == f"enrolled as shared device {device_id} of dev", "the enrollment")

    # A worker signs in at the IdP; the sheet returns to the app at make run's redirect URI.
    answer(program, "Work email:", email)
    show = re.fullmatch(r"Show (\S+), open (\S+)", program.wait_for_line(lambda line: line.startswith("Show "), "the code"))
    assert show, program.output()
    callback = browser_login(show.group(2), email)
    assert callback.status_code == 303, describe(callback)
    assert callback.headers["location"].startswith("com.acme.fieldapp:/signed-in?result=signed_in"), callback.headers
    realm = re.fullmatch(r"realm (\S+) exists; waiting for its data", program.wait_for_line(lambda line: line.startswith("realm "), "realm"))
    assert realm, program.output()
    filled = local_run.fieldpass("realms", "mark-initialized", realm.group(1))
    assert filled.returncode == 0, cli_output(filled)
    program.wait_for_line(lambda line: line == "GET /me with the shift's token: 200", "the API call with the shift's token")
    program.wait_for_line(lambda line: line == f"{email} holds the tablet", "who holds the tablet")

    # The same worker, with a badge this time: the temporary PIN, then one of their own.
    issued = local_run.fieldpass("badges", "issue", email)
    badge, pin = re.search(r"Badge, shown this once: (\S+)", issued.stdout), re.search(r"temporary PIN (\d+)", issued.stdout)
    assert issued.returncode == 0 and badge and pin, cli_output(issued)
    shown = len(program.lines)
    answer(program, "Badge:", badge.group(1))
    answer(program, "PIN:", pin.group(1))
    answer(program, "A PIN of your own:", NEW_PIN)
    program.wait_for_line(lambda line: line == f"change 3: {email} holds the tablet", "the badge shift's start, heard")
    # The follower can hear the shift start before the program has asked who holds the tablet;
    # unenrolled before that question, the program's top level would get `notEnrolled` and trap.
    program.wait_for_line(lambda line: line == f"{email} holds the tablet", "who holds the tablet after the badge", since=shown)

    unenrolled = local_run.fieldpass("shared-devices", "unenroll", device_id)
    assert unenrolled.returncode == 0, cli_output(unenrolled)
    assert f"The shift of {email} ended with it (unenrolled)." in unenrolled.stdout, cli_output(unenrolled)
    status = program.wait_exit()
    assert status == 0, f"the program exited with {status}\n{program.output()}"
    heard = [line for line in program.lines if line.startswith(("change ", "unenrolled"))]
    assert heard == [
        f"change 1: {email} holds the tablet",
        f"change 2: {email}'s shift ended (signed_out); wiping their data",
        f"change 3: {email} holds the tablet",
        "unenrolled: wiping everything, back to the setup screen",
    ], program.output()
    assert program.lines.count(f"{email} holds the tablet") == 2, program.output()
