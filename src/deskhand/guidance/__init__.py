"""The bundled platform guidance: an entry document (the Skill) and one document per platform.

The entry selects exactly one platform document from the platform the connected deskhand
reports in its tools listing (``_meta.platform``), never from the machine the client runs on.
"""

from __future__ import annotations

from importlib import resources

DOCUMENTS = {"entry": "SKILL.md", "linux": "linux.md", "macos": "macos.md"}
#: platform -> the one platform document the entry selects for it.
PLATFORM_DOCUMENTS = {"linux": "linux", "macos": "macos"}


def load(name: str = "entry") -> str:
    """The text of one guidance document: ``entry``, ``linux`` or ``macos``."""
    try:
        filename = DOCUMENTS[name]
    except KeyError:
        known = ", ".join(sorted(DOCUMENTS))
        msg = f"no guidance document {name!r}; known: {known}"
        raise ValueError(msg) from None
    return resources.files(__package__).joinpath(filename).read_text(encoding="utf-8")


def select(platform: str) -> str:
    """The platform document's name for a reported platform (``linux.md`` for ``linux``).

    Raises:
        ValueError: for a platform deskhand ships no document for (``windows``, anything else).
    """
    try:
        return DOCUMENTS[PLATFORM_DOCUMENTS[platform]]
    except KeyError:
        msg = f"no deskhand guidance for the platform {platform!r}; resolve the reported platform, never guess"
        raise ValueError(msg) from None


def selected(platform: str) -> str:
    """The text of the one platform document for ``platform``."""
    return load(next(k for k, v in DOCUMENTS.items() if v == select(platform)))
