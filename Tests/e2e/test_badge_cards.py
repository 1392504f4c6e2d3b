"""The badge cards a supervisor prints and hands out: `fieldpass badges issue --team … --out
cards.svg --paper a4|letter` writes one SVG per page (owner-only, they hold the badges), ID-1
cards inside the page with cutting marks, each card's QR code read back by ZBar off librsvg's
rendering and signing its own person in, each card's text measured by Chromium inside its card
and whole (the full email, the display name, the company). A second issue for the team issues
to nobody unless `--replace`, which says how many cards stop working before it replaces them.
"""

from __future__ import annotations

import copy
import re
import secrets
import stat
import subprocess
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import (
    ADMIN_EMAIL, DEV_BACKEND, EMAIL_DOMAIN, Browser, EnvironmentSpec, FieldpassServer, MockIdP, SignedIn, assert_json,
    cli_output, server_env, server_in, sign_in,
)
from scim_flows import GROUP_SCHEMA, new_user, scim, scim_json
from test_badges import badge_sign_in
from test_shifts import enrolled_tablet

SVG = "{http://www.w3.org/2000/svg}"
COMPANY = "Fernández & Söhne Field Services GmbH"
# ID-1, in millimetres; the pages of each paper, and how many cards each holds.
CARD_WIDTH, CARD_HEIGHT = 85.6, 53.98
PAPERS = {"a4": ((210, 297), 10), "letter": ((215.9, 279.4), 8)}
PRINTER_BORDER = 5.0
SCIM_TOKEN = "badge-cards-scim-token-for-the-e2e-suite-0123"
CREW = 24


@pytest.fixture(scope="module")
def cards_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    environments = (
        EnvironmentSpec(
            "dev", (EMAIL_DOMAIN,), (ADMIN_EMAIL,), (DEV_BACKEND,), scim_token_env="DEV_SCIM_TOKEN", scim_token=SCIM_TOKEN,
            name=COMPANY,
        ),
    )
    workdir = tmp_path_factory.mktemp("server-cards")
    server = server_in(workdir, fieldpass_bin, idp, server_env(None, environments), environments=environments)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def admin(cards_server: FieldpassServer) -> SignedIn:
    return sign_in(cards_server, ADMIN_EMAIL)


def crew(server: FieldpassServer) -> tuple[str, dict[str, str | None]]:
    """A team of 24 the IdP provisioned: long emails that differ only at their end, display
    names, one person without a name and one with a very long email. Its name, and each
    member's email with their display name."""
    run = secrets.token_hex(3)
    people: dict[str, str | None] = {}
    for index in range(1, CREW + 1):
        email = f"maria.fernandez-lopez{index}.{run}@{EMAIL_DOMAIN}"
        name: str | None = f"María Fernández-López {index}"
        if index == 7:
            name = None
        if index == 8:
            email = f"konstantinos-alexandros.papadopoulos-vasilopoulou.{run}@{EMAIL_DOMAIN}"
            name = "Konstantinos-Alexandros Papadopoulos-Vasilopoulou"
        people[email] = name
    ids = []
    for email, name in people.items():
        attributes: dict[str, Any] = {"displayName": name} if name else {}
        ids.append(scim_json(scim(server, "POST", "/Users", new_user(email, **attributes), token=SCIM_TOKEN), 201)["id"])
    team = f"Night crew {run}"
    group = {"schemas": [GROUP_SCHEMA], "displayName": team, "members": [{"value": id} for id in ids]}
    scim_json(scim(server, "POST", "/Groups", group, token=SCIM_TOKEN), 201)
    return team, people


def issue(server: FieldpassServer, *args: str) -> subprocess.CompletedProcess[str]:
    return server.cli("badges", "issue", *args, "--config", str(server.config_path))


def page_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("cards-*.svg"), key=lambda path: int(path.stem.split("-")[1]))


def read_qr(svg: ElementTree.ElementTree, folder: Path, name: str) -> list[str]:
    """What a scanner reads off `svg` as librsvg prints it at 300 dpi."""
    source, png = folder / f"{name}.svg", folder / f"{name}.png"
    svg.write(source, encoding="unicode")
    subprocess.run(["rsvg-convert", "--dpi-x", "300", "--dpi-y", "300", "-o", str(png), str(source)], check=True)
    read = subprocess.run(["zbarimg", "--raw", "-q", str(png)], capture_output=True, text=True)
    assert read.returncode in (0, 4), read.stderr  # 4: no code at all, which the caller judges
    return read.stdout.split()


def cards_of(page: ElementTree.ElementTree) -> list[ElementTree.Element]:
    return [group for group in page.getroot().iter(f"{SVG}g") if group.get("class") == "card"]


def alone(page: ElementTree.ElementTree, card: ElementTree.Element) -> ElementTree.ElementTree:
    """The page with only `card` on it."""
    single = copy.deepcopy(page)
    root = single.getroot()
    index = cards_of(page).index(card)
    for other_index, other in enumerate(cards_of(single)):
        if other_index != index:
            root.remove(other)
    return single


MEASURE = """
const page = document.documentElement.getBoundingClientRect();
const mm = page.width / arguments[0];
return [...document.querySelectorAll('g.card')].map(card => {
  const edge = card.querySelector('rect.card-edge').getBoundingClientRect();
  const box = element => { const r = element.getBoundingClientRect();
    return [(r.left - page.left) / mm, (r.top - page.top) / mm, (r.right - page.left) / mm, (r.bottom - page.top) / mm]; };
  return {card: box(card.querySelector('rect.card-edge')), qr: box(card.querySelector('svg')),
          texts: [...card.querySelectorAll('text')].map(text => ({text: text.textContent, box: box(text)}))};
});
"""


def inside(box: list[float], outer: list[float], slack: float = 0.05) -> bool:
    return (box[0] >= outer[0] - slack and box[1] >= outer[1] - slack
            and box[2] <= outer[2] + slack and box[3] <= outer[3] + slack)


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_a_teams_cards_print_on_pages_with_every_qr_code_readable_and_every_text_inside_its_card(
    cards_server: FieldpassServer, admin: SignedIn, browser: Browser, tmp_path: Path, paper: str,
) -> None:
    server = cards_server
    team, people = crew(server)
    out = tmp_path / "cards.svg"
    printed = issue(server, "--team", team, "--out", str(out), "--paper", paper)
    assert printed.returncode == 0, cli_output(printed)
    pins = dict(re.findall(r"^(\S+): badge \S+, temporary PIN ([0-9]{8}),", printed.stdout, re.M))
    assert sorted(pins) == sorted(people), cli_output(printed)
    (width, height), per_page = PAPERS[paper]
    pages = page_files(tmp_path)
    assert [page.name for page in pages] == [f"cards-{n}.svg" for n in range(1, -(-CREW // per_page) + 1)], pages
    assert all(stat.S_IMODE(page.stat().st_mode) == 0o600 for page in pages), [oct(page.stat().st_mode) for page in pages]

    tablet = enrolled_tablet(server, admin)
    signed_in: set[str] = set()
    for page_path in pages:
        page = ElementTree.parse(page_path)
        root = page.getroot()
        assert (root.get("width"), root.get("height")) == (f"{width:g}mm", f"{height:g}mm"), root.attrib
        cards = cards_of(page)
        assert 0 < len(cards) <= per_page
        # Every code on the page as printed, then each card alone: its code is its person's badge.
        on_page = read_qr(page, tmp_path, page_path.stem)
        assert len(on_page) == len(cards) and all(code.startswith("fpb_") for code in on_page), on_page
        browser.open(page_path.as_uri())
        measured = browser.driver.execute_script(MEASURE, width)
        assert len(measured) == len(cards)
        for index, (card, sizes) in enumerate(zip(cards, measured)):
            edge = sizes["card"]
            assert abs(edge[2] - edge[0] - CARD_WIDTH) < 0.2 and abs(edge[3] - edge[1] - CARD_HEIGHT) < 0.2, sizes
            # Inside the page, clear of a printer's border: no card crosses a page.
            assert inside(edge, [PRINTER_BORDER, PRINTER_BORDER, width - PRINTER_BORDER, height - PRINTER_BORDER]), edge
            assert inside(sizes["qr"], edge), sizes
            for text in sizes["texts"]:
                assert inside(text["box"], edge), (page_path.name, index, text, edge)
            words = "".join(text["text"] for text in sizes["texts"])
            email = next(email for email in people if email in words)
            assert COMPANY in words, words
            name = people[email]
            assert name is None or name in " ".join(text["text"] for text in sizes["texts"]), (name, words)
            code = read_qr(alone(page, card), tmp_path, f"{page_path.stem}-{index}")
            assert len(code) == 1, code
            started = badge_sign_in(server, tablet, code[0], pins[email], "38472910")
            assert_json(started)
            assert server.verify_access_token(started.json()["access_token"])["email"] == email
            signed_in.add(email)
    assert signed_in == set(people)


def test_issuing_for_a_team_again_replaces_nobody_unless_asked_and_says_how_many_first(
    cards_server: FieldpassServer, admin: SignedIn, tmp_path: Path,
) -> None:
    server = cards_server
    team, people = crew(server)
    first = issue(server, "--team", team, "--out", str(tmp_path / "cards.svg"))
    assert first.returncode == 0, cli_output(first)
    old_pins = dict(re.findall(r"^(\S+): badge \S+, temporary PIN ([0-9]{8}),", first.stdout, re.M))
    before = {page.name: page.read_bytes() for page in page_files(tmp_path)}

    again = issue(server, "--team", team, "--out", str(tmp_path / "cards.svg"))
    assert again.returncode == 0, cli_output(again)
    assert f"Kept the live badges of {CREW} " in again.stdout and "Nobody to issue a badge to." in again.stdout, cli_output(again)
    assert "temporary PIN" not in again.stdout, cli_output(again)
    assert {page.name: page.read_bytes() for page in page_files(tmp_path)} == before
    # The cards handed out still work.
    tablet = enrolled_tablet(server, admin)
    page = ElementTree.parse(page_files(tmp_path)[0])
    card = cards_of(page)[0]
    old_code = read_qr(alone(page, card), tmp_path, "old")[0]
    words = "".join(text.text or "" for text in card.iter(f"{SVG}text"))
    email = next(email for email in people if email in words)
    assert_json(badge_sign_in(server, tablet, old_code, old_pins[email], "38472910"))

    # One person on their own: the same rule.
    single = server.cli("badges", "issue", email, "--config", str(server.config_path))
    assert single.returncode == 0 and "Nobody to issue a badge to." in single.stdout, cli_output(single)
    assert_json(badge_sign_in(server, tablet, old_code, "38472910"))

    replaced = issue(server, "--team", team, "--out", str(tmp_path / "new.svg"), "--replace")
    assert replaced.returncode == 0, cli_output(replaced)
    lines = replaced.stdout.splitlines()
    said = next(i for i, line in enumerate(lines) if line.startswith(f"Replacing the live badges of {CREW}:"))
    assert said < next(i for i, line in enumerate(lines) if "temporary PIN" in line), cli_output(replaced)
    assert all(stat.S_IMODE(page.stat().st_mode) == 0o600 for page in tmp_path.glob("new-*.svg"))
    refused = badge_sign_in(server, tablet, old_code, "38472910")
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_grant", refused.text


def test_a_sheet_is_written_owner_only_even_over_a_readable_file_and_never_through_a_link(
    cards_server: FieldpassServer, tmp_path: Path,
) -> None:
    server = cards_server
    team, _ = crew(server)
    (tmp_path / "cards-1.svg").write_text("old")
    (tmp_path / "cards-1.svg").chmod(0o644)
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    (tmp_path / "cards-2.svg").symlink_to(target)
    refused = issue(server, "--team", team, "--out", str(tmp_path / "cards.svg"))
    assert refused.returncode != 0 and "cannot write" in refused.stderr, cli_output(refused)
    assert target.read_text() == "keep"
    # Nothing was issued: the sheet could not be written.
    (tmp_path / "cards-2.svg").unlink()
    issued = issue(server, "--team", team, "--out", str(tmp_path / "cards.svg"))
    assert issued.returncode == 0 and "Kept the live badges" not in issued.stdout, cli_output(issued)
    assert stat.S_IMODE((tmp_path / "cards-1.svg").stat().st_mode) == 0o600
    assert (tmp_path / "cards-1.svg").read_text().startswith("<svg")
