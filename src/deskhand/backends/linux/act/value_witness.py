"""Whether the app took a value set on a control's Value interface, seen outside the control.

A slider's ``CurrentValue`` is the widget's own number: Qt and GTK change it for any caller and
read it back at once, while the app may act only on a user's drag (VLC's seek slider moves and
the player does not seek). So a slider's value reads back for nothing; what shows that the app
took it is the app itself: a label beside the control that changes with it (a player's time,
a volume percentage, a zoom level). ``Witness`` reads the labels near the control (the
descendants of its grandparent, breadth first, at most ``MAX_NODES``) before the value is set,
and polls them after it for ``WITNESS_S``: the first label whose text changed is the evidence.
A control whose value springs back to where it was is refused by the app.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final

from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.enums import Role, role_set
from deskhand.core import deadline as call_deadline

__all__ = ("Witness",)

#: The labels near a control are read from at most this many nodes around it.
MAX_NODES: Final = 80
#: How long the labels are watched for the app's answer to a new value.
WITNESS_S: Final = 0.6
_LABEL_ROLES: Final = role_set(Role.LABEL, Role.STATIC, Role.TEXT, Role.STATUS_BAR)


@dataclass(frozen=True, slots=True)
class Witness:
    """The texts of the labels near one control, read before its value is set."""

    a11y: A11y
    control: Ref
    labels: dict[Ref, str]

    @classmethod
    def read(cls, a11y: A11y, control: Ref) -> Witness:
        root = a11y.parent(control)
        root = (a11y.parent(root) if root is not None else None) or root
        labels: dict[Ref, str] = {}
        if root is not None:
            queue, seen = [root], 0
            while queue and seen < MAX_NODES:
                node = queue.pop(0)
                seen += 1
                if node != control and a11y.role(node) in _LABEL_ROLES:
                    labels[node] = _shown(a11y, node)
                queue.extend(a11y.children(node))
        return cls(a11y, control, labels)

    def changed(self, seconds: float = WITNESS_S) -> tuple[str, str] | None:
        """(old, new) text of the first label that changed within ``seconds``, else None."""
        deadline = time.monotonic() + call_deadline.bound(seconds)
        while True:
            for ref, old in self.labels.items():
                new = _shown(self.a11y, ref)
                if new != old:
                    return old, new
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)  # polling the app with a deadline


def _shown(a11y: A11y, ref: Ref) -> str:
    return a11y.text(ref) or a11y.name(ref) or ""
