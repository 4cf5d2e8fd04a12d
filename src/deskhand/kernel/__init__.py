"""deskhand.kernel: the ``js`` tool's persistent, isolated JavaScript session.

``KernelSession(caller).run(code)`` runs one cell in a worker process; see
:mod:`deskhand.kernel.session` for the lifecycle and :mod:`deskhand.kernel.compiler` for
the persistence rewrite.
"""

from __future__ import annotations

from deskhand.kernel.cell import CellResult, ToolCaller
from deskhand.kernel.driver import KernelLimits
from deskhand.kernel.session import KernelSession

__all__ = ["CellResult", "KernelLimits", "KernelSession", "ToolCaller"]
