"""deskhand: see and operate native desktop applications from AI agents and scripts."""

from __future__ import annotations

__version__ = "0.1.0"
