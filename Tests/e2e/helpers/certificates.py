"""A certificate authority of the test's own, made with the openssl CLI in a temporary
folder (keys never leave it, nothing is committed): a CA and a server certificate it signs
for 127.0.0.1 and localhost, as a TLS-only PostgreSQL serves them."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from .processes import _die_with_parent

DAYS = "2"


def _openssl(*args: str) -> None:
    result = subprocess.run(
        ["openssl", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
        preexec_fn=_die_with_parent,
    )
    if result.returncode != 0:
        pytest.fail(f"openssl {args[0]} failed: {result.stderr}")


@dataclass(frozen=True)
class LocalCA:
    """`folder`/ca.crt, and after issue_server(): server.crt and server.key beside it."""

    folder: Path
    name: str

    @property
    def certificate(self) -> Path:
        return self.folder / "ca.crt"

    @property
    def key(self) -> Path:
        return self.folder / "ca.key"

    @classmethod
    def make(cls, folder: Path, name: str) -> LocalCA:
        folder.mkdir(parents=True, exist_ok=True)
        ca = cls(folder, name)
        _openssl(
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", str(ca.key), "-out", str(ca.certificate), "-days", DAYS, "-subj", f"/CN={name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        )
        return ca

    def issue_server(self) -> Path:
        """A server certificate and key for IP 127.0.0.1 and DNS localhost, signed by this
        CA; returns the folder holding server.crt and server.key."""
        request = self.folder / "server.csr"
        extensions = self.folder / "server.ext"
        extensions.write_text(
            "subjectAltName = IP:127.0.0.1, DNS:localhost\n"
            "basicConstraints = critical, CA:FALSE\n"
            "keyUsage = critical, digitalSignature, keyEncipherment\n"
            "extendedKeyUsage = serverAuth\n"
        )
        _openssl(
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", str(self.folder / "server.key"), "-out", str(request), "-subj", "/CN=localhost",
        )
        _openssl(
            "x509", "-req", "-in", str(request), "-CA", str(self.certificate), "-CAkey", str(self.key),
            "-CAcreateserial", "-out", str(self.folder / "server.crt"), "-days", DAYS, "-extfile", str(extensions),
        )
        return self.folder
