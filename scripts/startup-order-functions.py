"""The functions of the `fieldpass` binary that ran in callgrind profiles, once each, in the order
the profiles list them (the first profile's, then what later ones add), for lld's
--symbol-ordering-file. Used by scripts/startup-order.

    python3 startup-order-functions.py SYMBOLS PROFILE...

SYMBOLS: `nm -n` lines of the binary's functions, "ADDRESS NAME". A profile names a function by
its symbol, or by its address where valgrind read none; an address is the function that
starts at or before it.
"""

from __future__ import annotations

import bisect
import re
import sys

ENTRY = re.compile(r"^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$")


def functions_run(profile: str) -> list[str]:
    """The names or addresses of the functions of the object named `fieldpass`, as listed."""
    objects: dict[str, str] = {}
    functions: dict[str, str] = {}
    current_object = ""
    found: list[str] = []
    with open(profile, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            match = ENTRY.match(line.rstrip("\n"))
            if not match:
                continue
            kind, number, name = match.groups()
            table = objects if kind in ("ob", "cob") else functions
            if name:
                table[number] = name
            if kind == "ob":
                current_object = objects.get(number, "")
            elif kind == "fn" and current_object.endswith("/fieldpass"):
                found.append(functions[number].split("'")[0])
    return found


def main(symbols_file: str, profiles: list[str]) -> None:
    addresses: list[int] = []
    names: list[str] = []
    with open(symbols_file, encoding="utf-8") as symbols:
        for line in symbols:
            address, name = line.split(maxsplit=1)
            addresses.append(int(address, 16))
            names.append(name.strip())
    known = set(names)
    listed: set[str] = set()
    for profile in profiles:
        for entry in functions_run(profile):
            if entry.startswith("0x"):
                index = bisect.bisect_right(addresses, int(entry, 16)) - 1
                name = names[index] if index >= 0 else None
            else:
                name = entry if entry in known else None
            if name and name not in listed:
                listed.add(name)
                print(name)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
