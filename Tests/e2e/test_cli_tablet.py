"""`fieldpass tablet`: a shared tablet played from the command line, on `FieldpassDevice` as a
tablet's app is. Its commands act as one tablet through its folder (the key, the shift's
tokens); they enroll it once, start shifts with badge and PIN and say what a worker can do
about a refusal, follow the shifts as every app on the tablet does, and end a shift.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import FieldpassServer, WatchedCommand, cli_output, unique_email
from helpers.dpop import pem_key_thumbprint

NEW_PIN = "38472910"


def tablet(server: FieldpassServer, folder: Path, *args: str) -> str:
    """`fieldpass tablet ARGS` for the tablet kept in `folder`, at the server: its output, once it
    exited 0."""
    result = server.cli("tablet", *args, "--dir", str(folder), "--server", server.public_url)
    assert result.returncode == 0, cli_output(result)
    return result.stdout


def tablet_refused(server: FieldpassServer, folder: Path, *args: str) -> str:
    """What `fieldpass tablet ARGS` says as it fails (exit status 1)."""
    result = server.cli("tablet", *args, "--dir", str(folder), "--server", server.public_url)
    assert result.returncode == 1, cli_output(result)
    return result.stderr


def admin(server: FieldpassServer, *args: str) -> str:
    """An admin's `fieldpass ARGS` on the server's configuration: its output, once it exited 0."""
    result = server.cli(*args, "--config", str(server.config_path))
    assert result.returncode == 0, cli_output(result)
    return result.stdout


def enrollment_code(server: FieldpassServer) -> tuple[str, str]:
    """A new shared device's id and code, as `fieldpass shared-devices enroll` prints them."""
    printed = admin(server, "shared-devices", "enroll", "--name", f"Van {unique_email('v')[2:8]}")
    match = re.search(r"^Van \w+ \((\S+)\) .*\nEnrollment code, shown this once: (\S+)$", printed, re.M)
    assert match, printed
    return match.group(1), match.group(2)


def enrolled(server: FieldpassServer, folder: Path) -> str:
    device_id, code = enrollment_code(server)
    tablet(server, folder, "enroll", code)
    return device_id


def worker_with_a_badge(server: FieldpassServer) -> tuple[str, str, str]:
    """A worker Fieldpass knows, their new badge and its temporary PIN."""
    email = unique_email("crew")
    server.register(email)
    printed = admin(server, "badges", "issue", email)
    badge, pin = re.search(r"Badge, shown this once: (\S+)", printed), re.search(r"temporary PIN (\d+)", printed)
    assert badge and pin, printed
    return email, badge.group(1), pin.group(1)


def test_a_tablet_enrolls_once_with_a_key_of_its_own(server: FieldpassServer, tmp_path: Path) -> None:
    folder = tmp_path / "tablet"
    device_id, code = enrollment_code(server)
    assert "the code was refused: wrong, used or expired" in tablet_refused(server, folder, "enroll", "BCDF-GHJK-LMNP-QRST-VWXZ")
    # As typed off the console: lower case, spaces for dashes.
    printed = tablet(server, folder, "enroll", code.lower().replace("-", " "))
    assert f"Enrolled: this tablet is shared device {device_id} of environment dev." in printed, printed
    key_file = folder / "device-key.pem"
    thumbprint = pem_key_thumbprint(key_file)
    assert f"(thumbprint {thumbprint}), is kept in {key_file}." in printed, printed
    assert key_file.stat().st_mode & 0o777 == 0o600 and folder.stat().st_mode & 0o777 == 0o700

    # The server by default is the configuration's public URL, as `make run` serves it.
    status = server.cli("tablet", "status", "--dir", str(folder), "--config", str(server.config_path))
    assert status.returncode == 0 and status.stdout == "Nobody holds the tablet.\n", cli_output(status)
    # An enrolled tablet is not replaced by a second code.
    _, second = enrollment_code(server)
    assert "is enrolled already" in tablet_refused(server, folder, "enroll", second)
    assert pem_key_thumbprint(key_file) == thumbprint

    # Unenrolled, it says so; enrolled again, it has a new key, since a key enrolls one device.
    admin(server, "shared-devices", "unenroll", device_id)
    assert "is not enrolled at" in tablet_refused(server, folder, "status")
    tablet(server, folder, "enroll", second)
    assert pem_key_thumbprint(key_file) != thumbprint


def test_badge_sign_ins_say_what_the_worker_can_do(server: FieldpassServer, tmp_path: Path) -> None:
    folder = tmp_path / "tablet"
    enrolled(server, folder)
    ann, ann_badge, ann_pin = worker_with_a_badge(server)
    bob, bob_badge, bob_pin = worker_with_a_badge(server)

    refused = tablet_refused(server, folder, "sign-in", "--badge", ann_badge, "--pin", ann_pin)
    assert "that is the temporary PIN an admin was given: choose a PIN of your own and give it with --new-pin" in refused
    weak = tablet_refused(server, folder, "sign-in", "--badge", ann_badge, "--pin", ann_pin, "--new-pin", "12345678")
    assert "the new PIN breaks a rule (run): 8 digits" in weak, weak
    printed = tablet(server, folder, "sign-in", "--badge", ann_badge, "--pin", ann_pin, "--new-pin", NEW_PIN)
    assert re.search(rf"^Shift started: {re.escape(ann)} holds the tablet \(shift \S+\); the new PIN is theirs from now on\.$", printed, re.M)
    assert re.search(rf"^    1  \S+  shift started  {re.escape(ann)}$", printed, re.M), printed
    assert (folder / "shift-tokens.json").stat().st_mode & 0o777 == 0o600

    assert "wrong PIN: 4 more wrong PINs lock the badge" in tablet_refused(server, folder, "sign-in", "--badge", bob_badge, "--pin", "19283746")
    assert "the badge was refused" in tablet_refused(server, folder, "sign-in", "--badge", "fpb_nothing", "--pin", NEW_PIN)
    # Bob's sign-in ends the shift Ann forgot to end.
    printed = tablet(server, folder, "sign-in", "--badge", bob_badge, "--pin", bob_pin, "--new-pin", NEW_PIN)
    heard = [match.groups() for line in printed.splitlines() if (match := re.fullmatch(r"    \d+  \S+  (.+)  (\S+)", line))]
    assert heard == [("shift ended (next_worker)", ann), ("shift started", bob)], printed
    assert tablet(server, folder, "status").startswith(f"{bob} holds the tablet since "), "status"


def test_events_follow_the_shifts_until_the_tablet_is_unenrolled(server: FieldpassServer, tmp_path: Path) -> None:
    folder = tmp_path / "tablet"
    device_id = enrolled(server, folder)
    ann, badge, pin = worker_with_a_badge(server)
    events = WatchedCommand(
        "events", [str(server.binary), "tablet", "events", "--dir", str(folder), "--server", server.public_url], server.env, tmp_path)
    try:
        tablet(server, folder, "sign-in", "--badge", badge, "--pin", pin, "--new-pin", NEW_PIN)
        events.wait_for_line(lambda line: re.fullmatch(rf"1  \S+  shift started  {re.escape(ann)}", line) is not None, "the start")
        # An admin ends it: the tablet's apps hear why.
        admin(server, "shared-devices", "end-shift", device_id)
        events.wait_for_line(
            lambda line: re.fullmatch(rf"2  \S+  shift ended \(ended_by_admin\)  {re.escape(ann)}", line) is not None, "the end")
        assert tablet(server, folder, "end-shift") == "Nobody holds the tablet: no shift to end.\n"

        admin(server, "shared-devices", "unenroll", device_id)
        events.wait_for_line(lambda line: line.startswith("The tablet was unenrolled"), "the unenrollment")
        assert events.wait_exit() == 0, events.output()
        assert len(events.lines) == 3, events.output()
    finally:
        events.kill()


def test_a_folder_without_a_tablet_says_how_to_make_one(server: FieldpassServer, tmp_path: Path) -> None:
    refused = tablet_refused(server, tmp_path / "nothing-here", "sign-in", "--badge", "fpb_x", "--pin", NEW_PIN)
    assert f"no tablet in {tmp_path / 'nothing-here'}: enroll one first (fieldpass tablet enroll CODE)" in refused
    assert not (tmp_path / "nothing-here").exists()
