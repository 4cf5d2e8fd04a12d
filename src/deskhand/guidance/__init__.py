"""The bundled platform guidance: an entry document and one document per platform."""

from __future__ import annotations

from importlib import resources

DOCUMENTS = {"entry": "SKILL.md", "linux": "linux.md", "macos": "macos.md"}


def load(name: str = "entry") -> str:
    """The text of one guidance document: ``entry``, ``linux`` or ``macos``."""
    try:
        filename = DOCUMENTS[name]
    except KeyError:
        known = ", ".join(sorted(DOCUMENTS))
        msg = f"no guidance document {name!r}; known: {known}"
        raise ValueError(msg) from None
    return resources.files(__package__).joinpath(filename).read_text(encoding="utf-8")
