"""Development certificates made by deploy/certs.sh, for the unit tests of the TLS settings."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CERTS_SH = ROOT / "deploy" / "certs.sh"


def make_certs(folder: Path) -> Path:
    """Run deploy/certs.sh into ``folder`` (a CA of its own) and return it."""
    subprocess.run(["bash", str(CERTS_SH), str(folder)], check=True, capture_output=True,
                   timeout=120)  # fmt: skip
    return folder
