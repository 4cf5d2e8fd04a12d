"""The built wheel: its contents, and a fresh virtual environment that installs it from the package
index, stays under 60 MB, and serves MCP (initialize, then a `js` cell whose screenshot of a
real Mousepad window is a JPEG of the fitted size, made by the wheel's own imaging route).

Slow (a wheel build and a dependency install from the index); the installed size is printed.
"""

from __future__ import annotations

import base64
import io
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from PIL import Image

from deskhand import __version__

pytestmark = [pytest.mark.slow, pytest.mark.desktop, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
LIMIT_MB = 60
CELL = 'let app = await cua.getApp("Mousepad"); await app.getScreenshot();'


def _size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        timeout=600,
        capture_output=True,
    )
    (built,) = out.glob("deskhand-*.whl")
    return built


@pytest.fixture(scope="module")
def fresh_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    venv = tmp_path_factory.mktemp("venv") / "v"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=300)
    before = _size(venv)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        timeout=900,
        capture_output=True,
    )
    yield venv, _size(venv) - before


def test_the_wheel_carries_the_js_files_the_guidance_and_the_type_marker(wheel: Path) -> None:
    assert wheel.name == f"deskhand-{__version__}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    for package_file in ROOT.glob("src/deskhand/kernel/js/*.js"):
        assert f"deskhand/kernel/js/{package_file.name}" in names
    for package_file in ROOT.glob("src/deskhand/guidance/*.md"):
        assert f"deskhand/guidance/{package_file.name}" in names
    assert {"deskhand/kernel/js/cua.js", "deskhand/guidance/SKILL.md", "deskhand/py.typed"} <= names
    assert f"deskhand-{__version__}.dist-info/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"deskhand-{__version__}.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Operating System :: POSIX :: Linux" in metadata
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert not any("==" in line.split(";")[0] for line in requires), requires  # ranges, not pins
    assert not any(name in " ".join(requires).lower() for name in ("opencv", "numpy", "mss", "pillow"))
    assert any(line.startswith("Requires-Dist: uvicorn") for line in requires)


def test_a_fresh_install_is_small(fresh_venv: tuple[Path, int]) -> None:
    _venv, added = fresh_venv
    print(f"fresh venv install of the wheel: {added / 2**20:.1f} MiB added")
    assert added < LIMIT_MB * 10**6


def test_the_installed_command_serves_mcp_and_screenshots(fresh_venv: tuple[Path, int], tmp_path: Path) -> None:
    venv, _ = fresh_venv
    version = subprocess.run(
        [str(venv / "bin" / "deskhand"), "--version"], capture_output=True, text=True, check=True, timeout=60
    )
    assert version.stdout.strip() == f"deskhand {__version__}"
    env = {**os.environ, "GSETTINGS_BACKEND": "memory", "XDG_CONFIG_HOME": str(tmp_path)}
    env.pop("PYTHONPATH", None)
    params = StdioServerParameters(
        command=str(venv / "bin" / "deskhand"), args=["serve", "--virtual", "--launch", "mousepad"], env=env
    )

    async def go() -> tuple[str, types.CallToolResult]:
        async with Client(params, mode="legacy") as client:
            name = client.server_info.name if client.server_info else ""
            return name, await client.call_tool("js", {"code": CELL})

    name, result = anyio.run(go)
    assert name == "deskhand"
    assert not result.is_error, [b.text for b in result.content if isinstance(b, types.TextContent)]
    images = [b for b in result.content if isinstance(b, types.ImageContent)]
    assert images and images[-1].mime_type == "image/jpeg"
    with Image.open(io.BytesIO(base64.b64decode(images[-1].data))) as shot:
        assert shot.format == "JPEG"
        assert min(shot.size) >= 100  # a real window, fitted
