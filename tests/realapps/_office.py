"""LibreOffice helpers for the matrix: headless conversion (the app's own reading of a saved
file) and process samples (CPU time and memory from ``/proc``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def convert(src: Path, fmt: str, out_dir: Path, profile: Path) -> Path:
    """``soffice --headless --convert-to fmt`` with its own profile (a running GUI instance would
    take the request otherwise); the converted file's path."""
    soffice = shutil.which("soffice") or "soffice"
    out_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--norestore",
            "--convert-to",
            fmt,
            "--outdir",
            str(out_dir),
            str(src),
        ],
        check=True,
        capture_output=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")},
    )
    ext = fmt.split(":", 1)[0]
    return out_dir / f"{src.stem}.{ext}"


@dataclass(frozen=True)
class Sample:
    cpu_s: float
    rss_kb: int


def sample(pid: int) -> Sample:
    """The process's CPU time so far (user + system) and resident memory."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
    rss = next(
        int(line.split()[1])
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if line.startswith("VmRSS:")
    )
    return Sample(cpu, rss)
