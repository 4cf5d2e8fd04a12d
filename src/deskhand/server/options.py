"""The options of `deskhand serve` that shape the MCP face (no MCP import: the CLI reads them first)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Final

#: MCP's log levels (RFC 5424) and the Python level each one starts at.
LOG_LEVELS: Final = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO + 5,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL + 5,
    "emergency": logging.CRITICAL + 10,
}
IMAGE_POLICIES: Final = ("allow", "omit", "scale")
DEFAULT_IMAGE_MAX_EDGE: Final = 1024


@dataclass(frozen=True, slots=True)
class ImagePolicy:
    """``--image-responses``: ``allow`` passes images as they are, ``omit`` replaces each with a
    line of text, ``scale`` shrinks those whose long edge exceeds ``max_edge`` and says by how much."""

    mode: str = "allow"
    max_edge: int = DEFAULT_IMAGE_MAX_EDGE

    def __post_init__(self) -> None:
        if self.mode not in IMAGE_POLICIES:
            raise ValueError(f"image responses must be one of {', '.join(IMAGE_POLICIES)}, not {self.mode!r}")
        if self.max_edge < 16:
            raise ValueError(f"the image edge limit must be at least 16 pixels, not {self.max_edge}")


@dataclass(frozen=True, slots=True)
class ServerOptions:
    images: ImagePolicy = field(default_factory=ImagePolicy)
    #: The level of log messages sent to a client until it sets its own.
    log_level: str = "warning"
    #: Every HTTP session uses the one js session of the service (off: each its own).
    share_session: bool = False

    def __post_init__(self) -> None:
        if self.log_level not in LOG_LEVELS:
            raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, not {self.log_level!r}")
