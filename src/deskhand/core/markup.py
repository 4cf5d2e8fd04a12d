"""Paste formats: what each of ``text``, ``md`` and ``html`` offers on the clipboard.

Seed 1 (native-contract.md 6.10): ``text`` and ``md`` offer the raw UTF-8 text; ``html`` offers the
HTML bytes plus a plain-text rendering, falling back to the raw text. Seed 2 (sdk-contract.md 6.3)
also renders Markdown to HTML, so ``md`` offers the raw text as plain text *and* HTML rendered with
markdown-it-py (CommonMark). No external resource is ever loaded: the renderer only parses.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Final

from markdown_it import MarkdownIt

from deskhand.core.errors import ArgumentError

#: Elements whose start and end break the line in the plain rendering.
_BLOCKS: Final = frozenset(
    {
        "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "fieldset", "figcaption",
        "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
        "nav", "ol", "p", "pre", "section", "table", "tr", "ul",
    }
)  # fmt: skip
#: Elements whose content is never text.
_SKIPPED: Final = frozenset({"script", "style", "head", "title", "template", "noscript"})


class _TextRenderer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skip += 1
        elif tag == "br":
            self.parts.append("\n")
        elif tag in {"td", "th"}:
            self.parts.append("\t")
        elif tag in _BLOCKS:
            self._break()
            self._pre += tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCKS:
            self._break()
            if tag == "pre":
                self._pre = max(0, self._pre - 1)

    def _break(self) -> None:
        if self.parts and not self.parts[-1].endswith("\n"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._pre:
            self.parts.append(data)
            return
        text = re.sub(r"\s+", " ", data)
        if not self.parts or self.parts[-1].endswith("\n"):
            text = text.lstrip(" ")
        if text:
            self.parts.append(text)


def html_to_text(html: str) -> str:
    """A plain-text rendering of HTML: blocks on their own lines, entities decoded, scripts dropped."""
    renderer = _TextRenderer()
    renderer.feed(html)
    renderer.close()
    text = "".join(renderer.parts)
    lines = [line.rstrip(" ") for line in text.split("\n")]
    out = "\n".join(lines).strip("\n")
    return out or html


def markdown_to_html(markdown: str) -> str:
    """CommonMark HTML for Markdown text; raw HTML inside the Markdown is escaped, not passed through."""
    html: str = MarkdownIt("commonmark", {"html": False}).render(markdown)
    return html


PLAIN_MIME: Final = "text/plain;charset=utf-8"
HTML_MIME: Final = "text/html"


def representations(text: str, fmt: str) -> tuple[tuple[str, bytes], ...]:
    """The ``(mime type, bytes)`` pairs a paste offers, richest first, plain text always present."""
    if fmt == "text":
        return ((PLAIN_MIME, text.encode()),)
    if fmt == "md":
        return ((HTML_MIME, markdown_to_html(text).encode()), (PLAIN_MIME, text.encode()))
    if fmt == "html":
        try:
            plain = html_to_text(text)
        except Exception:  # the contract falls back to the raw text on any parser failure
            plain = text
        return ((HTML_MIME, text.encode()), (PLAIN_MIME, plain.encode()))
    raise ArgumentError("paste format must be text, md, or html.")
