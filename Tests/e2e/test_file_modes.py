"""What Fieldpass writes to disk is its own: the SQLite folder it creates is 0700 and the
database with its -wal and -shm files 0600, whatever the umask; key files are written 0600
(see test_key_rotation.py for the warning about a loose one)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from helpers import MockIdP, SQLiteDatabase, server_env, server_in, sign_in, unique_email


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_sqlite_folder_and_files_are_private(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    folder = tmp_path / "state" / "db"
    database = SQLiteDatabase(folder / "fieldpass.sqlite")
    server = server_in(tmp_path / "server", fieldpass_bin, idp, server_env(None, None), database=database)
    old_umask = os.umask(0o022)  # the usual umask, which would give 0755 and 0644
    try:
        server.start()
    finally:
        os.umask(old_umask)
    try:
        sign_in(server, unique_email("modes"))  # writes, so the WAL files exist
        files = [folder / "fieldpass.sqlite", folder / "fieldpass.sqlite-wal", folder / "fieldpass.sqlite-shm"]
        assert all(file.exists() for file in files), sorted(p.name for p in folder.iterdir())
        assert mode(folder) == 0o700, oct(mode(folder))
        assert {file.name: oct(mode(file)) for file in files} == {file.name: "0o600" for file in files}
        assert all(oct(mode(key)) == "0o600" for key in server.keys_dir.glob("*.pem"))
    finally:
        server.stop()
