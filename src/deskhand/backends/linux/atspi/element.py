"""AT-SPI calls the Linux actor makes on one element: actions, text, values, selection, hit-test.

Thin, typed wrappers over ``AtspiConnection.call``: each returns our own values (or ``None``
when the element does not answer or lacks the interface) so the acting modules never see a D-Bus
reply. Offsets here are the app's: Unicode code points as AT-SPI specifies (GTK), except that
Qt counts UTF-16 units (``A11y.utf16``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from deskhand.backends.linux.atspi.calls import TIMED_OUT
from deskhand.backends.linux.atspi.connection import (
    ACCESSIBLE,
    ACTION,
    APPLICATION,
    COMPONENT,
    EDITABLE_TEXT,
    ROOT_PATH,
    TEXT,
    VALUE,
    Call,
    Failed,
)
from deskhand.backends.linux.atspi.enums import Role, State, role_set
from deskhand.core.clicktiers import Outcome

__all__ = ()

SELECTION: Final = "org.a11y.atspi.Selection"
PROPERTIES: Final = "org.freedesktop.DBus.Properties"
#: AT-SPI roles of rows a list selects (list item, table row, tree item) and of windows.
ROW_ROLES: Final = role_set(Role.LIST_ITEM, Role.TABLE_ROW, Role.TREE_ITEM)
WINDOW_ROLES: Final = role_set(Role.DIALOG, Role.FRAME, Role.WINDOW)
#: Action names that press an element, in preference order, lowercased (GTK, Qt, Chromium).
#: Not "activate": on a GTK entry it activates the window's default button.
PRESS_ACTIONS: Final = ("click", "press", "toggle", "activate", "jump", "open", "confirm")
#: A table cell's: not "activate" either, which is its row's activation (a double click: Thunar
#: opens the file, a GTK tree view emits ``row-activated``); a click selects the row.
CELL_PRESS_ACTIONS: Final = tuple(a for a in PRESS_ACTIONS if a != "activate")
MENU_ACTIONS: Final = ("showmenu", "show menu", "menu", "popup")
#: How long ``AddSelection`` is waited for (GTK 4.8 never answers it; the selection is read back).
ADD_WAIT_S: Final = 0.3


def _outcome(reply: Any) -> Outcome:
    if isinstance(reply, Failed):
        return "unknown"
    return "done" if reply and reply[0] else "refused"


@dataclass(frozen=True, slots=True)
class Ref:
    """An accessible object: the app's bus name and the object path."""

    bus: str
    path: str


class A11y:
    """The actor's view of the accessibility bus (one shared ``AtspiConnection``)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._toolkits: dict[str, str] = {}
        self._registered_events: set[str] = set()

    def _call(self, ref: Ref, iface: str, method: str, sig: str | None = None, *body: Any) -> Any:
        reply = self._conn.call(Call(ref.bus, ref.path, iface, method, sig, tuple(body)))
        return None if isinstance(reply, Failed) else reply

    def _origin(self, ref: Ref) -> tuple[int, int]:
        """Where the bounds of ``ref`` start on the screen: (0, 0) but for a window-relative app
        (GTK 4): its own window's origin (``AtspiConnection.origin_of``)."""
        origin_of = getattr(self._conn, "origin_of", None)
        return origin_of(ref.bus, ref.path) if origin_of is not None else (0, 0)

    def register_events(self, names: Iterable[str]) -> None:
        """Register AT-SPI event names with the registry, once each (atk-bridge emits only those)."""
        for name in names:
            if name in self._registered_events:
                continue
            reply = self._conn.call(
                Call("org.a11y.atspi.Registry", "/org/a11y/atspi/registry", "org.a11y.atspi.Registry",
                     "RegisterEvent", "sass", (name, [], ""))
            )  # fmt: skip
            if not isinstance(reply, Failed):
                self._registered_events.add(name)

    def forget_registrations(self) -> None:
        """The registry that knew them is gone: ``register_events`` sends them again."""
        self._registered_events.clear()

    def _prop(self, ref: Ref, iface: str, name: str) -> Any:
        reply = self._call(ref, PROPERTIES, "Get", "ss", iface, name)
        return None if reply is None else reply[0][1]

    # -- structure ----------------------------------------------------------------------------
    def toolkit(self, bus: str) -> str:
        """The app's ``ToolkitName`` (``GTK``, ``Qt``, ...), lowercased; ``""`` when unknown."""
        name = self._toolkits.get(bus)
        if name is None:
            value = self._prop(Ref(bus, ROOT_PATH), APPLICATION, "ToolkitName")
            name = str(value).lower() if value is not None else ""
            if len(self._toolkits) >= 256:
                self._toolkits.clear()
            self._toolkits[bus] = name
        return name

    def interfaces(self, ref: Ref) -> frozenset[str]:
        reply = self._call(ref, ACCESSIBLE, "GetInterfaces")
        return frozenset(reply[0]) if reply else frozenset()

    def role(self, ref: Ref) -> int:
        reply = self._call(ref, ACCESSIBLE, "GetRole")
        return int(reply[0]) if reply else -1

    def name(self, ref: Ref) -> str | None:
        value = self._prop(ref, ACCESSIBLE, "Name")
        return None if value is None else str(value)

    def parent(self, ref: Ref) -> Ref | None:
        value = self._prop(ref, ACCESSIBLE, "Parent")
        if not value or value[1] in ("/org/a11y/atspi/null", ""):
            return None
        return Ref(str(value[0]), str(value[1]))

    def index_in_parent(self, ref: Ref) -> int:
        reply = self._call(ref, ACCESSIBLE, "GetIndexInParent")
        return int(reply[0]) if reply else -1

    def children(self, ref: Ref) -> list[Ref]:
        reply = self._call(ref, ACCESSIBLE, "GetChildren")
        return [Ref(str(b), str(p)) for b, p in reply[0]] if reply else []

    def states(self, ref: Ref) -> int:
        reply = self._call(ref, ACCESSIBLE, "GetState")
        if not reply:
            return 0
        words = reply[0]
        return int(words[0]) | (int(words[1]) << 32 if len(words) > 1 else 0)

    def states_within(self, ref: Ref, timeout_s: float) -> int | None:
        """The element's states, or None when the app did not answer within ``timeout_s``."""
        reply = self._conn.call(Call(ref.bus, ref.path, ACCESSIBLE, "GetState"), timeout_s=timeout_s)
        if isinstance(reply, Failed) or not reply:
            return None
        words = reply[0]
        return int(words[0]) | (int(words[1]) << 32 if len(words) > 1 else 0)

    def editable(self, ref: Ref) -> bool:
        """Whether the element's states say EDITABLE (0 states when it does not answer)."""
        return bool(self.states(ref) & State.EDITABLE)

    def extents(self, ref: Ref) -> tuple[int, int, int, int] | None:
        """The element's bounds on the screen (a window-relative app's moved by its origin)."""
        reply = self._call(ref, COMPONENT, "GetExtents", "u", 0)
        if not reply:
            return None
        x, y, w, h = (int(v) for v in reply[0])
        dx, dy = self._origin(ref)
        return x + dx, y + dy, w, h

    def at_point(self, ref: Ref, x: int, y: int) -> Ref | None:
        """The element at screen point (x, y) below ``ref`` (hit-test), or None."""
        dx, dy = self._origin(ref)
        reply = self._call(ref, COMPONENT, "GetAccessibleAtPoint", "iiu", x - dx, y - dy, 0)
        if not reply or reply[0][1] == "/org/a11y/atspi/null":
            return None
        return Ref(str(reply[0][0]), str(reply[0][1]))

    def offset_at_point(self, ref: Ref, x: int, y: int) -> int | None:
        """The offset of the character at screen point (x, y) in ``ref``'s text, or None (also
        when the app does not answer within ``ADD_WAIT_S``: GTK 4.8 never answers this one)."""
        dx, dy = self._origin(ref)
        call = Call(ref.bus, ref.path, TEXT, "GetOffsetAtPoint", "iiu", (x - dx, y - dy, 0))
        reply = self._conn.call(call, timeout_s=ADD_WAIT_S)
        if reply is TIMED_OUT or isinstance(reply, Failed) or not reply:
            return None
        return int(reply[0]) if int(reply[0]) >= 0 else None

    def character_extents(self, ref: Ref, offset: int) -> tuple[int, int, int, int] | None:
        """Where the character at ``offset`` is on the screen (a window-relative app's moved by
        its origin), or None; a character scrolled out of view keeps a position."""
        reply = self._call(ref, TEXT, "GetCharacterExtents", "iu", offset, 0)
        if not reply:
            return None
        x, y, w, h = (int(v) for v in reply[:4])
        if w <= 0 and h <= 0 and x == 0 and y == 0:
            return None  # no such character, or one the app cannot place
        dx, dy = self._origin(ref)
        return x + dx, y + dy, w, h

    def grab_focus(self, ref: Ref) -> bool:
        reply = self._call(ref, COMPONENT, "GrabFocus")
        return bool(reply and reply[0])

    # -- actions ------------------------------------------------------------------------------
    def actions(self, ref: Ref) -> list[str]:
        """The element's action names. ``GetActions`` gives localized names, which some toolkits
        leave empty or fill wrongly, so an empty name, or one equal to its key binding, is asked
        for again with ``GetName``: Gecko (Firefox) puts the key binding (";;") in all three fields
        (its buttons then say "press", its links "jump"); GTK 2 (gail) has no localized name for
        a button's "click" (its first action, whose key binding is the mnemonic, ``<Alt>s``) and
        none for "press" and "release", which alone press the button down or let it up: without
        the name, "press" was taken for the click, and GIMP's dialog buttons stayed down, unclicked."""
        reply = self._call(ref, ACTION, "GetActions")
        if not reply:
            return []
        names = [str(a[0]) for a in reply[0]]
        for i, entry in enumerate(reply[0]):
            if not entry[0] or entry[0] == entry[2]:
                named = self._call(ref, ACTION, "GetName", "i", i)
                if named and named[0]:
                    names[i] = str(named[0])
        return names

    def do_action(self, ref: Ref, index: int) -> bool:
        reply = self._call(ref, ACTION, "DoAction", "i", index)
        return bool(reply and reply[0])

    def perform(self, ref: Ref, index: int) -> Outcome:
        """``DoAction`` once: ``unknown`` when the call timed out or failed on the wire (the app
        may still perform it), ``refused`` when the app answered that it did not."""
        return _outcome(self._conn.call(Call(ref.bus, ref.path, ACTION, "DoAction", "i", (index,))))

    def select_child(self, ref: Ref, index: int) -> Outcome:
        """``Selection.SelectChild`` once, with the outcomes of ``perform``."""
        return _outcome(self._conn.call(Call(ref.bus, ref.path, SELECTION, "SelectChild", "i", (index,))))

    # -- text ---------------------------------------------------------------------------------
    def utf16(self, ref: Ref) -> bool:
        """Whether the app counts text offsets in UTF-16 units (Qt) instead of code points."""
        return self.toolkit(ref.bus).startswith("qt")

    def length(self, ref: Ref, text: str) -> int:
        """``len(text)`` in the app's text offset unit (see ``utf16``)."""
        return len(text.encode("utf-16-le")) // 2 if self.utf16(ref) else len(text)

    def text(self, ref: Ref) -> str | None:
        count = self.character_count(ref)
        if count is None:
            return None
        reply = self._call(ref, TEXT, "GetText", "ii", 0, count)
        return str(reply[0]) if reply else None

    def character_count(self, ref: Ref) -> int | None:
        value = self._prop(ref, TEXT, "CharacterCount")
        return None if value is None else int(value)

    def caret(self, ref: Ref) -> int | None:
        value = self._prop(ref, TEXT, "CaretOffset")
        return None if value is None else int(value)

    def selection(self, ref: Ref) -> tuple[int, int] | None:
        """The first selection range in code points, or None when nothing is selected."""
        n = self._call(ref, TEXT, "GetNSelections")
        if not n or int(n[0]) == 0:
            return None
        reply = self._call(ref, TEXT, "GetSelection", "i", 0)
        return (int(reply[0]), int(reply[1])) if reply else None

    def set_selection(self, ref: Ref, start: int, end: int) -> bool:
        """Select [start, end) (a caret at ``start`` when empty); True when the app took it.

        An existing selection is moved (``SetSelection``), else one is added (``AddSelection``).
        GTK 4.8 answers ``SetSelection`` True yet drops the selection, and applies
        ``AddSelection`` without ever answering: so a moved selection is read back (and added
        anew from a caret when it is not there), and an unanswered add counts when the selection
        reads back as asked."""
        if start == end:
            reply = self._call(ref, TEXT, "SetCaretOffset", "i", start)
            if reply and reply[0]:
                self._call(ref, TEXT, "RemoveSelection", "i", 0)
            return bool(reply and reply[0])
        n = self._call(ref, TEXT, "GetNSelections")
        if n and int(n[0]) > 0:
            reply = self._call(ref, TEXT, "SetSelection", "iii", 0, start, end)
            if reply and reply[0] and self.selection(ref) == (start, end):
                return True
            # GTK 4.8 answers True and drops the selection: start again from none.
            self._call(ref, TEXT, "SetCaretOffset", "i", start)
        reply = self._conn.call(Call(ref.bus, ref.path, TEXT, "AddSelection", "ii", (start, end)), timeout_s=ADD_WAIT_S)
        if reply is TIMED_OUT:
            return self.selection(ref) == (start, end)  # GTK 4.8 applies it but never answers
        return not isinstance(reply, Failed) and bool(reply and reply[0])

    def set_caret(self, ref: Ref, offset: int) -> bool:
        reply = self._call(ref, TEXT, "SetCaretOffset", "i", offset)
        return bool(reply and reply[0])

    def insert_text(self, ref: Ref, offset: int, text: str) -> bool:
        # ``length`` has no agreed unit: atk-bridge hands it to GTK as a byte count of the UTF-8
        # text, while Qt resizes its UTF-16 string to it (padding with garbage when it is longer).
        length = self.length(ref, text) if self.utf16(ref) else len(text.encode())
        reply = self._call(ref, EDITABLE_TEXT, "InsertText", "isi", offset, text, length)
        return bool(reply and reply[0])

    def delete_text(self, ref: Ref, start: int, end: int) -> bool:
        reply = self._call(ref, EDITABLE_TEXT, "DeleteText", "ii", start, end)
        return bool(reply and reply[0])

    def set_text_contents(self, ref: Ref, text: str) -> bool:
        reply = self._call(ref, EDITABLE_TEXT, "SetTextContents", "s", text)
        return bool(reply and reply[0])

    # -- values -------------------------------------------------------------------------------
    def value(self, ref: Ref) -> tuple[float, float, float] | None:
        """(current, minimum, maximum) of a Value element."""
        got = [self._prop(ref, VALUE, n) for n in ("CurrentValue", "MinimumValue", "MaximumValue")]
        if any(v is None for v in got):
            return None
        return float(got[0]), float(got[1]), float(got[2])

    def set_value(self, ref: Ref, value: float) -> bool:
        reply = self._call(ref, PROPERTIES, "Set", "ssv", VALUE, "CurrentValue", ("d", float(value)))
        return reply is not None
