"""Image export in GIMP 2.10: open a generated image and export it as PNG through File >
Export As; checked from the exported file's pixels. The PNG options dialog is a plug-in's (a
child process of GIMP): it is in GIMP's state, and its Export button is clicked by handle."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from _agent import Agent, js, need
from PIL import Image

from realapps._apps import Apps
from realapps._apps import need as need_binary

pytestmark = pytest.mark.slow

NAME_FIELD = r"text (?:\(focused\) )?\(settable, string\)"


@pytest.mark.task("GIMP")
def test_export_an_image_as_png(apps: Apps, agent: Agent, tmp_path: Path) -> None:
    source = tmp_path / "red.ppm"
    Image.new("RGB", (40, 30), (200, 20, 20)).save(source)
    target = tmp_path / "red.png"
    running = apps.run([need_binary("gimp"), "--no-splash", "--no-data", str(source)], "gimp", timeout_s=120.0)
    pid = running.pid
    agent.bind(pid, timeout_s=120.0)
    agent.until(pid, r"Window: \"\[?red\]? ", tries=30)
    agent.act(pid, lambda _s: "await app.pressKey('ctrl+shift+e');").expect_ok()  # File > Export As...
    agent.until(pid, r"Window: \"Export Image(?s:.*)label Name", tries=15)
    agent.act(
        pid,
        lambda s: (
            f"await app.click({js(need(s, NAME_FIELD))});"
            f"await app.pressKey('ctrl+a'); await app.typeText({js(str(target))}); await app.pressKey('Return');"
        ),
    ).expect_ok()
    state = agent.until(pid, r"Window: \"Export Image as PNG(?s:.*)push button _?Export", tries=15)
    agent.act(pid, lambda s: f"await app.click({js(need(s, r'push button _?Export'))});").expect_ok()
    del state
    deadline = time.monotonic() + 30
    while not target.exists():
        assert time.monotonic() < deadline, "no PNG was exported"
        time.sleep(0.2)  # polling the exported file with a deadline
    with Image.open(target) as png:
        assert png.size == (40, 30) and png.convert("RGB").getpixel((5, 5)) == (200, 20, 20)
