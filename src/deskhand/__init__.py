"""deskhand: see and operate native desktop applications from AI agents and scripts."""

from __future__ import annotations

__version__ = "0.1.0"


__all__ = ["App", "Computer", "__version__"]


def __getattr__(name: str) -> object:
    # Lazy, so that `import deskhand` stays light for the kernel worker and the CLI.
    if name in ("App", "Computer"):
        from deskhand import sdk  # noqa: PLC0415

        return getattr(sdk, name)
    msg = f"module 'deskhand' has no attribute {name!r}"
    raise AttributeError(msg)
