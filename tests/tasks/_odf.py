"""OpenDocument and Office Open XML files for the tasks: minimal inputs written at test time
(no LibreOffice needed to make them) and readers of what the app saved (the XML parsed)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
}
_MIME = {"odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet"}
_HEAD = " ".join(f'xmlns:{k}="{v}"' for k, v in NS.items() if k != "w")


def _write(path: Path, kind: str, body: str) -> Path:
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<office:document-content {_HEAD} office:version="1.3">{body}</office:document-content>'
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
        f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{_MIME[kind]}"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), _MIME[kind])  # first and stored, as ODF requires
        z.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
    return path


def make_odt(path: Path, paragraphs: list[str]) -> Path:
    paras = "".join(f"<text:p>{p}</text:p>" for p in paragraphs)
    return _write(path, "odt", f"<office:body><office:text>{paras}</office:text></office:body>")


def make_ods(path: Path, sheet: str, rows: list[list[float]]) -> Path:
    cells = "".join(
        "<table:table-row>"
        + "".join(
            f'<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell>'
            for v in row
        )
        + "</table:table-row>"
        for row in rows
    )
    body = (
        "<office:body><office:spreadsheet>"
        f'<table:table table:name="{sheet}">{cells}</table:table>'
        "</office:spreadsheet></office:body>"
    )
    return _write(path, "ods", body)


def content(path: Path, member: str = "content.xml") -> ET.Element:
    """The parsed ``member`` of a saved zip document (raises while the file is incomplete)."""
    with zipfile.ZipFile(path) as z:
        return ET.fromstring(z.read(member))


def q(name: str) -> str:
    """``prefix:local`` as ElementTree's ``{uri}local``."""
    prefix, local = name.split(":")
    return f"{{{NS[prefix]}}}{local}"


def text_styles(root: ET.Element) -> dict[str, dict[str, str]]:
    """Automatic style name -> its text properties (``fo:font-weight``, ``style:font-name``...)."""
    out: dict[str, dict[str, str]] = {}
    for st in root.iter(q("style:style")):
        props = st.find(q("style:text-properties"))
        if props is not None:
            out[st.get(q("style:name"), "")] = {k.split("}")[1]: v for k, v in props.attrib.items()}
    return out


def spans(root: ET.Element) -> list[tuple[str, str]]:
    """(text, style name) of every span and paragraph, in document order."""
    kinds = (q("text:span"), q("text:p"), q("text:h"))
    return [("".join(el.itertext()), el.get(q("text:style-name"), "")) for el in root.iter() if el.tag in kinds]


def sheets(root: ET.Element) -> list[ET.Element]:
    return list(root.iter(q("table:table")))


def cells(table: ET.Element) -> list[list[ET.Element]]:
    """The rows of a sheet as lists of cells, repeated rows and cells expanded (within reason)."""
    rows = []
    for row in table.iter(q("table:table-row")):
        line: list[ET.Element] = []
        for cell in row:
            if cell.tag in (q("table:table-cell"), q("table:covered-table-cell")):
                line.extend([cell] * min(int(cell.get(q("table:number-columns-repeated"), "1")), 64))
        rows.extend([line] * min(int(row.get(q("table:number-rows-repeated"), "1")), 64))
    return rows
