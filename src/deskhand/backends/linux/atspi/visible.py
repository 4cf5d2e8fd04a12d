"""Reading what is visible of containers that must never be enumerated (Linux AT-SPI).

A container with MANAGES_DESCENDANTS creates its children's accessible objects on demand, and
asking it for all of them (``GetChildren``) makes the app build every one on its main thread:
LibreOffice Calc's sheet reports 2147483647 children and grows by gigabytes until it stops
answering. Such containers, and any reporting an absurd child count, are read only through the
interfaces made for it, and only for what is on screen:

- ``Table``: the cells at the visible extents' corners (``Component.GetAccessibleAtPoint``) give
  the visible row and column range; the cells in it come from ``Table.GetAccessibleAt``, at most
  ``MAX_CELLS`` of them (top-left first), each read with two calls (states, text), and those
  shown with four more (role, name, extents, interfaces): the blank cells of a partly read table
  are not shown. A cell without text of its own may be a GTK container cell (an icon and a text
  renderer in one column, as Thunar's file names): the distinct texts of its parts (at most
  ``MAX_CELL_PARTS``) are its text, and its name when it has none.
- otherwise ``Component.GetAccessibleAtPoint`` at a grid of points over the visible extents
  (``MAX_PROBES`` at most, sent together);
- and the selected children (``Selection.GetSelectedChild``), at most ``MAX_SELECTED``.

When those interfaces say less than the children do (Dolphin's file table reports 0 rows while
it has three cells; an icon view's probes fell between its items) and the container has at most
``MAX_CELLS`` children, its children are read by their index (``GetChildAtIndex``): a container
with millions (Calc's sheet) never is.

Every call goes through the read's ``ask`` (the read's deadline and its call cap apply).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from deskhand.backends.linux.atspi.roles import FOCUSED, MANAGES_DESCENDANTS, SELECTED

#: Interfaces (names as AT-SPI spells them).
COMPONENT: Final = "org.a11y.atspi.Component"
TABLE: Final = "org.a11y.atspi.Table"
SELECTION: Final = "org.a11y.atspi.Selection"
ACCESSIBLE: Final = "org.a11y.atspi.Accessible"
PROPERTIES: Final = "org.freedesktop.DBus.Properties"

#: A container reporting more children than this is never enumerated either.
MAX_ENUMERABLE_CHILDREN: Final = 10_000
#: Cells read from a table's visible range, and the columns of it (the rest is summarized).
MAX_CELLS: Final = 120
MAX_COLUMNS: Final = 10
TEXT: Final = "org.a11y.atspi.Text"
#: Point probes over a non-table container's visible extents, at least this far apart (pixels),
#: in at most this many columns this far apart.
MAX_PROBES: Final = 120
PROBE_STEP: Final = 8
MAX_PROBE_COLUMNS: Final = 8
PROBE_COLUMN_WIDTH: Final = 64
#: Parts of a container cell whose texts are read (GTK: one per renderer of the column).
MAX_CELL_PARTS: Final = 8
#: Selected children read.
MAX_SELECTED: Final = 20
#: AT-SPI's "null" object path (no object at that point).
NULL_PATH: Final = "/org/a11y/atspi/null"
SCREEN_COORDS: Final = 0


def must_not_enumerate(states: int, child_count: int) -> bool:
    """True for a container whose children may not be listed with ``GetChildren``: it manages
    its descendants (the state, or atk-bridge's cached child count of -1) or has too many."""
    return bool(states & MANAGES_DESCENDANTS) or child_count < 0 or child_count > MAX_ENUMERABLE_CHILDREN


@dataclass(slots=True)
class Cell:
    """One table cell as read by ``read_visible`` (raw AT-SPI values)."""

    path: str
    role: int
    states: int
    #: Its name as shown: its own, else its parts' texts.
    name: str
    text: str | None
    extents: tuple[int, int, int, int] | None
    interfaces: frozenset[str]
    #: The name the object itself reports (what is read again before an action on it).
    own_name: str = ""


@dataclass(slots=True)
class Visible:
    """What was read of one such container: its children in reading order, the cells among
    them already read in full, and a note on the part they are of (e.g. ``rows 1-20, columns
    1-12 of 1048576 x 16384``), or None."""

    children: list[str]
    note: str | None
    cells: dict[str, Cell]
    #: How many children the container says it has (-1 when unknown).
    total: int = -1


#: A read's ``ask``: calls in, replies out (a reply is a tuple, or anything else for a failure).
Ask = Callable[[Sequence[Any]], list[Any]]
#: Builds a call: (path, interface, method, signature, body).
MakeCall = Callable[[str, str, str, str | None, tuple[Any, ...]], Any]


def read_visible(
    ask: Ask, call: MakeCall, bus: str, path: str, interfaces: frozenset[str], *, document: bool = False
) -> Visible:
    """The visible children of the container at ``path`` (see the module docstring)."""
    [ext] = ask([call(path, COMPONENT, "GetExtents", "u", (SCREEN_COORDS,))]) if COMPONENT in interfaces else [None]
    extents = _extents(ext)
    found: list[str] = []
    note: str | None = None
    if extents is not None and TABLE in interfaces:
        found, note = _table_cells(ask, call, bus, path, extents)
    elif extents is not None:
        found = _probe_grid(ask, call, bus, path, extents, columns=1 if document else MAX_PROBE_COLUMNS)
    [count] = ask([call(path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "ChildCount"))])
    total = _int_variant(count) or -1
    # The interfaces say less than the children do (Dolphin's table: 0 rows, three cells; an
    # icon view whose probes missed items): a few children are read by their index instead.
    by_children = 0 < total <= MAX_CELLS and (not found if TABLE in interfaces else len(found) < total)
    if by_children:
        found = list(dict.fromkeys(found + _children(ask, call, bus, path, total)))
    cells: dict[str, Cell] = {}
    if TABLE in interfaces:
        cells = _read_cells(ask, call, found, skip_blank=note is not None)
        if note is not None:
            found = [p for p in found if p in cells]  # the blank cells: not shown, not read further
    if SELECTION in interfaces:
        found.extend(p for p in _selected(ask, call, bus, path) if p not in found)
    return Visible(found, note, cells, total if by_children or TABLE not in interfaces else -1)


def _children(ask: Ask, call: MakeCall, bus: str, path: str, count: int) -> list[str]:
    """The first ``count`` children (at most ``MAX_CELLS``), by index, sent together."""
    replies = ask([call(path, ACCESSIBLE, "GetChildAtIndex", "i", (i,)) for i in range(min(count, MAX_CELLS))])
    return [p for p in (_object(r, bus) for r in replies) if p is not None]


def _read_cells(ask: Ask, call: MakeCall, paths: list[str], *, skip_blank: bool) -> dict[str, Cell]:
    """The cells at ``paths``: states and text first, then role, name, extents and interfaces of
    those that are kept. With ``skip_blank`` (a partly read table: its blank cells are not shown,
    ``core/axtree/render.py``) a cell with no text that is neither focused nor selected is left
    out after its first two calls; a spreadsheet's screen is mostly such cells."""
    first = ask(
        [c for p in paths for c in (call(p, ACCESSIBLE, "GetState", None, ()), call(p, TEXT, "GetText", "ii", (0, -1)))]
    )
    kept: list[tuple[str, int, str | None]] = []
    for i, p in enumerate(paths):
        state, text = first[2 * i : 2 * i + 2]
        if not isinstance(state, tuple) or not state:
            continue
        words = state[0]
        states = int(words[0]) | (int(words[1]) << 32 if len(words) > 1 else 0)
        value = str(text[0]) if isinstance(text, tuple) and text else None
        # A cell without a text (no Text interface) may hold parts that have one: kept.
        if skip_blank and value is not None and not value.strip() and not states & (FOCUSED | SELECTED):
            continue
        kept.append((p, states, value))
    parts = _part_texts(ask, call, [p for p, _states, value in kept if value is None])
    replies = ask(
        [
            c
            for p, _states, _text in kept
            for c in (
                call(p, ACCESSIBLE, "GetRole", None, ()),
                call(p, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")),
                call(p, COMPONENT, "GetExtents", "u", (SCREEN_COORDS,)),
                call(p, ACCESSIBLE, "GetInterfaces", None, ()),
            )
        ]
    )
    cells: dict[str, Cell] = {}
    for i, (p, states, text) in enumerate(kept):
        role, name, ext, ifaces = replies[4 * i : 4 * i + 4]
        if _int(role) is None:
            continue
        own = str(name[0][1]) if isinstance(name, tuple) and name and isinstance(name[0], tuple) else ""
        cells[p] = Cell(
            p,
            int(role[0]),
            states,
            own or parts.get(p, ""),
            parts.get(p, text),
            _extents(ext),
            frozenset(ifaces[0]) if isinstance(ifaces, tuple) and ifaces else frozenset(),
            own,
        )
    return cells


def _part_texts(ask: Ask, call: MakeCall, paths: list[str]) -> dict[str, str]:
    """The texts of the parts of the container cells among ``paths`` (cells with no text of their
    own), joined by spaces; cells with no part that has a text are left out."""
    counts = ask([call(p, PROPERTIES, "Get", "ss", (ACCESSIBLE, "ChildCount")) for p in paths])
    holders = [p for p, n in zip(paths, counts, strict=True) if 0 < (_int_variant(n) or 0) <= MAX_CELL_PARTS]
    listed = ask([call(p, ACCESSIBLE, "GetChildren", None, ()) for p in holders])
    kids = {
        p: [str(k[1]) for k in reply[0]] if isinstance(reply, tuple) and reply and isinstance(reply[0], list) else []
        for p, reply in zip(holders, listed, strict=True)
    }
    order = [(p, k) for p in holders for k in kids[p]]
    texts = ask([call(k, TEXT, "GetText", "ii", (0, -1)) for _p, k in order])
    out: dict[str, list[str]] = {}
    for (p, _k), reply in zip(order, texts, strict=True):
        text = str(reply[0]).strip() if isinstance(reply, tuple) and reply else ""
        if text and text not in out.get(p, []):
            out.setdefault(p, []).append(text)
    return {p: " ".join(words) for p, words in out.items()}


def _table_cells(
    ask: Ask, call: MakeCall, bus: str, path: str, extents: tuple[int, int, int, int]
) -> tuple[list[str], str | None]:
    x, y, w, h = extents
    size = ask(
        [
            call(path, PROPERTIES, "Get", "ss", (TABLE, "NRows")),
            call(path, PROPERTIES, "Get", "ss", (TABLE, "NColumns")),
        ]
    )
    nrows, ncols = (_int_variant(r) for r in size)
    if nrows is None or ncols is None or nrows <= 0 or ncols <= 0:
        return [], None
    points = ((x + 1, y + 1), (x + w - 2, y + h - 2))
    corners = ask([call(path, COMPONENT, "GetAccessibleAtPoint", "iiu", (*pt, SCREEN_COORDS)) for pt in points])
    cells = _holding(ask, call, [_object(r, bus) for r in corners], points)
    indexes = ask([call(c, ACCESSIBLE, "GetIndexInParent", None, ()) for c in cells if c is not None])
    positions: list[tuple[int, int] | None] = []
    at = iter(indexes)
    for c in cells:
        index = _int(next(at)) if c is not None else None
        if index is None or index < 0:
            positions.append(None)
            continue
        row, col = ask(
            [call(path, TABLE, "GetRowAtIndex", "i", (index,)), call(path, TABLE, "GetColumnAtIndex", "i", (index,))]
        )
        r, k = _int(row), _int(col)
        positions.append((r, k) if r is not None and k is not None and r >= 0 and k >= 0 else None)
    first, last = positions
    r0, c0 = first if first is not None else (0, 0)
    r1, c1 = last if last is not None else (nrows - 1, ncols - 1)
    c1 = min(c1, c0 + MAX_COLUMNS - 1, ncols - 1)
    width = c1 - c0 + 1
    r1 = min(r1, r0 + max(1, MAX_CELLS // width) - 1, nrows - 1)
    replies = ask(
        [call(path, TABLE, "GetAccessibleAt", "ii", (r, k)) for r in range(r0, r1 + 1) for k in range(c0, c1 + 1)]
    )
    out = [p for p in (_object(r, bus) for r in replies) if p is not None]
    partial = (r0, c0) != (0, 0) or r1 < nrows - 1 or c1 < ncols - 1
    note = f"rows {r0 + 1}-{r1 + 1}, columns {c0 + 1}-{c1 + 1} of {nrows} x {ncols}" if partial else None
    return list(dict.fromkeys(out)), note


def _holding(ask: Ask, call: MakeCall, cells: list[str | None], points: Sequence[tuple[int, int]]) -> list[str | None]:
    """The hit-tested ``cells`` whose own extents hold the point that found them (else None): Qt
    on Wayland hit-tests in other coordinates than it reports extents in (Dolphin's details view
    answered the cell 72 px below the point)."""
    found = [c for c in cells if c is not None]
    extents = iter(ask([call(c, COMPONENT, "GetExtents", "u", (SCREEN_COORDS,)) for c in found]))
    out: list[str | None] = []
    for c, (px, py) in zip(cells, points, strict=True):
        ext = _extents(next(extents)) if c is not None else None
        holds = ext is not None and ext[0] <= px < ext[0] + ext[2] and ext[1] <= py < ext[1] + ext[3]
        out.append(c if holds else None)
    return out


def _probe_grid(
    ask: Ask, call: MakeCall, bus: str, path: str, extents: tuple[int, int, int, int], *, columns: int
) -> list[str]:
    """Children at a grid of points over the visible extents (``MAX_PROBES`` at most, up to
    ``columns`` columns ``PROBE_COLUMN_WIDTH`` apart so that an icon view's columns are hit; a
    document's paragraphs are found down its middle), sent together, in reading order without
    repeats."""
    x, y, w, h = extents
    cols = max(1, min(columns, w // PROBE_COLUMN_WIDTH))
    rows = max(1, MAX_PROBES // cols)
    step = max(PROBE_STEP, h // rows)
    xs = [x + (2 * i + 1) * w // (2 * cols) for i in range(cols)]
    points = [(px, py) for py in range(y + 1, y + h - 1, step) for px in xs][:MAX_PROBES]
    replies = ask([call(path, COMPONENT, "GetAccessibleAtPoint", "iiu", (px, py, SCREEN_COORDS)) for px, py in points])
    return list(dict.fromkeys(p for p in (_object(r, bus) for r in replies) if p is not None))


def _selected(ask: Ask, call: MakeCall, bus: str, path: str) -> list[str]:
    [count] = ask([call(path, PROPERTIES, "Get", "ss", (SELECTION, "NSelectedChildren"))])
    n = _int_variant(count)
    if not n or n <= 0:
        return []
    replies = ask([call(path, SELECTION, "GetSelectedChild", "i", (i,)) for i in range(min(n, MAX_SELECTED))])
    return [p for p in (_object(r, bus) for r in replies) if p is not None]


def _object(reply: Any, bus: str) -> str | None:
    """The path of an ``(so)`` reply on ``bus``, or None (failure, null object, other bus)."""
    if not isinstance(reply, tuple) or not reply:
        return None
    ref = reply[0]
    if not isinstance(ref, tuple) or len(ref) != 2:
        return None
    rbus, rpath = ref
    if rpath == NULL_PATH or rbus != bus:
        return None
    return str(rpath)


def _extents(reply: Any) -> tuple[int, int, int, int] | None:
    if not isinstance(reply, tuple) or not reply:
        return None
    x, y, w, h = (int(v) for v in reply[0])
    return (x, y, w, h) if w > 0 and h > 0 else None


def _int(reply: Any) -> int | None:
    if isinstance(reply, tuple) and reply and isinstance(reply[0], int):
        return int(reply[0])
    return None


def _int_variant(reply: Any) -> int | None:
    if isinstance(reply, tuple) and reply and isinstance(reply[0], tuple) and len(reply[0]) == 2:
        value = reply[0][1]
        return int(value) if isinstance(value, int) else None
    return None
