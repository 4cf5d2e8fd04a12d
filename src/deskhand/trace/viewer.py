"""``deskhand trace view DIR``: one self-contained HTML file that shows a recorded session.

The page needs no network and no server: the records are inlined as JSON and every screenshot as
base64 text in its own inert ``<script>`` element, turned into an image only when its call is shown
(so a 1,000-call trace opens at once). The page's script and style are package data
(``viewer.html``, ``viewer.js``, ``viewer.css``).
"""

from __future__ import annotations

import base64
import html
import json
from importlib import resources
from pathlib import Path
from typing import Final

from deskhand.trace.recorder import TRACE_FILE

DEFAULT_OUT: Final = "trace.html"


def read_records(directory: Path) -> list[dict[str, object]]:
    """The trace's records; a last line cut short by a crash is skipped."""
    records: list[dict[str, object]] = []
    path = directory / TRACE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no {TRACE_FILE} in {directory}")
    with path.open(encoding="utf-8") as f:
        for line in f:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def _image_files(records: list[dict[str, object]]) -> list[tuple[str, str]]:
    """(file, mime) of every image the records name, in order, once each."""
    seen: dict[str, str] = {}
    for record in records:
        images = record.get("images")
        if not isinstance(images, list):
            continue
        for image in images:
            if isinstance(image, dict) and isinstance(image.get("file"), str):
                seen.setdefault(str(image["file"]), str(image.get("mime", "image/jpeg")))
    return list(seen.items())


def _asset(name: str) -> str:
    return resources.files("deskhand.trace").joinpath(name).read_text(encoding="utf-8")


def _script_safe(text: str) -> str:
    return text.replace("</", "<\\/")


def render(directory: Path | str) -> str:
    """The viewer page of the trace in ``directory``."""
    directory = Path(directory)
    records = read_records(directory)
    blobs: list[str] = []
    for name, mime in _image_files(records):
        path = directory / name
        if not path.is_file():
            continue
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        attr = html.escape(name, quote=True)
        blobs.append(f'<script type="text/x-base64" class="img" data-file="{attr}" data-mime="{mime}">{data}</script>')
    page = _asset("viewer.html")
    data = _script_safe(json.dumps(records, ensure_ascii=False))
    parts = {
        "/*STYLE*/": _asset("viewer.css"),
        "/*SCRIPT*/": _script_safe(_asset("viewer.js")),
        "/*DATA*/": data,
        "<!--IMAGES-->": "\n".join(blobs),
        "<!--TITLE-->": html.escape(f"deskhand trace — {directory.name}"),
    }
    for marker, text in parts.items():
        page = page.replace(marker, text, 1)
    return page


def write_viewer(directory: Path | str, out: Path | str | None = None) -> Path:
    """Write the viewer of ``directory`` to ``out`` (default ``DIR/trace.html``); its path."""
    target = Path(out) if out is not None else Path(directory) / DEFAULT_OUT
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(directory), encoding="utf-8")
    return target
