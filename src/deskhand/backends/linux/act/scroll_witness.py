"""What a wheel scroll really moved: an element of the scrolled content, read until it holds still.

X wheels have no pixel unit, so ``act.scroll`` measures. The witness is the deepest accessible
under the wheel's point (or, where hit-testing answers nothing, a child of the web document
there); its on-screen position along the axis, read before the first notch and after each batch,
is the distance scrolled. Apps move their accessible positions late:

* Chromium sends a first position at once (the first frame of its scroll animation, a few
  pixels) and the rest on a cadence of about 500 ms, later when the machine is loaded;
* Firefox moves its positions within 30-200 ms, sometimes in two steps;
* GTK, Qt and Tk move them while they handle the wheel event: the first reading after a batch
  already holds the new position.

So a reading counts only once the element has moved by at least what the batch's notches must
move (``at_least``: a first frame is not the scroll) and has then held still for the quiet
window, which grows with the longest gap seen between two moves (the app's cadence). Without such
a move, the reading waits longer (``STALL_S``: the content's end, or nothing moved). Both windows
are shorter for native content (``SYNC_TOOLKITS``, ``Windows.of``): 0.12 s of quiet instead of
0.5 s, the cadence rule still lengthening them for an app that turns out slower. After the
last batch, ``converge`` reads once more for another quiet window: only two readings that agree
make a stable distance, and only a stable distance within half a notch of the request is
confirmed (``act.scroll``). Every wait is bounded, by its own limit and by the call's deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from deskhand.backends.base import Direction, RunningApp
from deskhand.backends.linux import procfs
from deskhand.backends.linux.act.seam import ActSession
from deskhand.backends.linux.atspi.connection import ROOT_PATH, Deadline
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.enums import Role, State, role_set
from deskhand.core import deadline as call_deadline
from deskhand.core import scroll as corescroll
from deskhand.core.geometry import Point

__all__ = ()

#: A measured notch is taken as at least this many pixels (a first read caught mid-animation
#: must not turn into hundreds of notches).
MIN_NOTCH_PX: Final = 20
#: Batches of notches after the first one, measuring after each (the first one measures the step),
#: and re-readings after the last batch that may find the content moved on.
MAX_BATCHES: Final = 5
MAX_RECHECKS: Final = 2
#: The position is polled this often; it is settled once unchanged for the quiet window:
#: ``QUIET_S``, or ``CADENCE_FACTOR`` times the longest gap seen between two moves (at most
#: ``QUIET_MAX_S``); without the expected move, once unchanged for ``STALL_S``; and never waited
#: on longer than ``SETTLE_MAX_S`` a reading.
POLL_S: Final = 0.015
QUIET_S: Final = 0.5
CADENCE_FACTOR: Final = 1.4
QUIET_MAX_S: Final = 1.5
STALL_S: Final = 1.5
SETTLE_MAX_S: Final = 3.0
#: Toolkits whose accessible positions move while the app handles the wheel event, and the
#: shorter windows their content is read with. Web content keeps the web windows (taken for
#: native, Chromium's late updates are misread): content found inside a web document, and any
#: app that maps a web engine (``WEB_ENGINES``: Chromium's ICU data in Electron, CEF and Qt
#: WebEngine apps; WebKitGTK), whatever its toolkit.
SYNC_TOOLKITS: Final = frozenset({"gtk2", "gtk3", "gtk4", "qt5", "qt6", "tk"})
WEB_ENGINES: Final = ("icudtl.dat", "libwebkit2gtk", "libwebkitgtk", "libQt5WebEngineCore", "libQt6WebEngineCore")
QUIET_SYNC_S: Final = 0.12
STALL_SYNC_S: Final = 0.4
#: How deep the element under the point is looked for; without hit-testing, how deep and how
#: many elements are searched for the web document (document frame, document web).
WITNESS_DEPTH: Final = 25
WITNESS_SEARCH_DEPTH: Final = 8
WITNESS_SEARCH_NODES: Final = 400
DOCUMENT_ROLES: Final = role_set(Role.DOCUMENT_FRAME, Role.DOCUMENT_WEB)
#: Elements whose text scrolls inside their own bounds: a character of theirs is the witness.
TEXT_VIEW_ROLES: Final = role_set(Role.TEXT, Role.DOCUMENT_TEXT, Role.TERMINAL)
#: Containers that stay put while what they hold scrolls; hit-testing can stop at one (GTK 3's
#: notebook pages answer it for no point), so the text view under the point is looked for inside.
HOLDER_ROLES: Final = role_set(
    Role.FILLER, Role.PANEL, Role.PAGE_TAB_LIST, Role.PAGE_TAB, Role.SCROLL_PANE, Role.VIEWPORT
)
#: Of those, the ones that never move with what they hold: no witness by themselves (the scroll
#: is then unverifiable, never a "no-op" read off an element that could not move).
STILL_ROLES: Final = role_set(Role.PAGE_TAB_LIST, Role.PAGE_TAB, Role.SCROLL_PANE, Role.VIEWPORT)
TEXT_VIEW_SEARCH_NODES: Final = 40
#: What scrolls native content, and where the search for one ends.
SCROLLING_ROLES: Final = role_set(Role.SCROLL_PANE, Role.VIEWPORT)
TOP_ROLES: Final = role_set(Role.FRAME, Role.WINDOW, Role.DIALOG, Role.APPLICATION)


@dataclass(frozen=True, slots=True)
class Reading:
    """Pixels moved in the scroll's direction since the start; ``stable`` when the position held
    still for the quiet window (else the bound came first); ``gone`` when the element vanished."""

    moved: int
    stable: bool
    gone: bool = False


@dataclass(frozen=True, slots=True)
class Windows:
    """How long a reading waits: ``quiet`` unchanged (the floor of the cadence rule) once the
    expected move came, ``stall`` unchanged without it (both at least the cadence rule's window)."""

    quiet: float = QUIET_S
    stall: float = STALL_S

    @classmethod
    def of(cls, toolkit: str | None, *, web: bool) -> Windows:
        """The windows for content of an app with ``toolkit`` (``web``: web content, or an app
        that embeds a browser engine)."""
        if toolkit in SYNC_TOOLKITS and not web:
            return cls(QUIET_SYNC_S, STALL_SYNC_S)
        return cls()


class Witness:
    """An element of the scrolled content (``read`` gives its position along the axis)."""

    def __init__(
        self,
        read: Callable[[], int | None],
        forward: bool,
        *,
        windows: Windows = Windows(),
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._read = read
        self._windows = windows
        self._sign = 1 if forward else -1
        self._clock = clock
        self._sleep = sleep
        self._start = read()
        self._moved = 0
        self._changed_at = clock()
        #: the longest gap seen between the wheel (or a move) and the next move
        self.cadence = 0.0

    @property
    def measurable(self) -> bool:
        return self._start is not None

    def _window(self) -> float:
        return min(QUIET_MAX_S, max(self._windows.quiet, CADENCE_FACTOR * self.cadence))

    def settle(self, at_least: float = 0.0) -> Reading:
        """The distance once the position holds still (module docstring): after a batch sent
        right before, ``at_least`` is what it must move along its own direction (negative: back)."""
        start = self._start
        if start is None:
            return Reading(0, stable=False, gone=True)
        t0 = self._clock()
        base, last, changed_at = self._moved, self._read(), t0
        if last is None:
            return Reading(self._moved, stable=False, gone=True)
        # a gap is measured from the wheel; a move found by a re-reading, from the move before
        since = t0 if at_least else self._changed_at
        while True:
            self._sleep(POLL_S)
            now = self._clock()
            pos = self._read()
            if pos is None:
                return Reading(self._moved, stable=False, gone=True)
            if pos != last:
                self.cadence = max(self.cadence, now - since)
                last, changed_at, since = pos, now, now
                self._changed_at = now
            self._moved = self._sign * (start - last)
            step = self._moved - base
            enough = at_least == 0 or step * (1 if at_least > 0 else -1) >= abs(at_least)
            quiet = now - changed_at
            if (enough and quiet >= self._window()) or quiet >= max(self._windows.stall, self._window()):
                return Reading(self._moved, stable=True)
            if now - t0 >= SETTLE_MAX_S or call_deadline.expired():
                return Reading(self._moved, stable=False)


@dataclass(frozen=True, slots=True)
class Converged:
    """How a measured wheel scroll ended: pixels moved, net notches, the last measured step, and
    whether the last two readings agreed."""

    moved: int
    notches: int
    per: float
    stable: bool


def converge(wheel: Callable[[int], None], witness: Witness, amount: int, first: int) -> Converged:
    """Send ``first`` notches, then correct towards ``amount`` pixels at the measured step.

    ``wheel(n)`` sends ``n`` notches (negative: back). Each batch is at most as large as the
    first one (a reading caught mid-jump must not run away). When no more notches are due, the
    distance is read again (``Witness.settle`` with nothing expected): if the content moved on,
    the loop corrects again; the result is stable only when the two readings agree.
    """
    wheel(first)
    got = witness.settle(first * MIN_NOTCH_PX / 2)
    moved, net, stable = got.moved, first, got.stable
    per = abs(moved) / first
    cap = max(2, first)
    batches = rechecks = 0
    while not got.gone:
        more = 0 if per == 0 else corescroll.round_half_away((amount - moved) / max(per, MIN_NOTCH_PX))
        more = max(-cap, min(cap, more))
        if more == 0 or batches >= MAX_BATCHES:
            if rechecks >= MAX_RECHECKS:
                break
            rechecks += 1
            got = witness.settle()
            if got.moved == moved:
                stable = got.stable
                break
            moved, stable = got.moved, False
            if batches >= MAX_BATCHES:
                break
            continue
        wheel(more)
        net += more
        batches += 1
        got = witness.settle(more * max(MIN_NOTCH_PX, per) / 2)
        if got.moved == moved:
            stable = got.stable
            break  # the content stopped: its end, or nothing more to scroll
        per = abs(got.moved - moved) / abs(more)  # the step as this batch measured it
        moved, stable = got.moved, got.stable
    return Converged(moved, net, per, stable)


def find_witness(s: ActSession, app: RunningApp, at: Point, ref: Ref | None, direction: Direction) -> Witness | None:
    """The deepest element under the point inside ``ref`` (or the app's window there), when
    it is not that start itself: the content that moves as it scrolls. In a native text view,
    whose bounds stay put, the character under the point; None (nothing to measure) when that
    element cannot move with the scroll: a scroll pane, a notebook, a multi-line text view that
    cannot place its characters (GTK 4.8), anything no scroll pane or viewport holds."""
    a11y = s.a11y
    start = ref if ref is not None else _window_at(s, app, at)
    if start is None:
        return None
    node, deepest = start, None
    for _ in range(WITNESS_DEPTH):
        child = a11y.at_point(node, round(at.x), round(at.y))
        if child is None or child == node:
            break
        deepest = node = child
    web = False
    if deepest is None or a11y.extents(deepest) is None:
        deepest, web = _document_child(a11y, start, at), True
    if deepest is None:
        return None
    kit = procfs.toolkit_of(app.identity)
    web = web or kit not in SYNC_TOOLKITS or procfs.maps_library(app.pid, WEB_ENGINES)
    axis = 1 if direction in ("up", "down") else 0
    read = _extents_reader(a11y, deepest, axis)
    if not web:
        role = a11y.role(deepest)
        view = _text_view_under(a11y, deepest, role, at)
        characters = _character_reader(a11y, view, at, axis) if view is not None else None
        if characters is not None:
            read = characters
        elif role in STILL_ROLES or (view is not None and a11y.states(view) & State.MULTI_LINE):
            return None  # it stays put while its content scrolls, and no character can be placed
        elif not _inside_scrolling(a11y, deepest):
            return None  # nothing above it scrolls (a canvas that handles the wheel itself)
    witness = Witness(read, direction in ("down", "right"), windows=Windows.of(kit, web=web))
    return witness if witness.measurable else None


def _extents_reader(a11y: A11y, element: Ref, axis: int) -> Callable[[], int | None]:
    """The position of ``element`` itself along the axis."""

    def read() -> int | None:
        ext = a11y.extents(element)
        return ext[axis] if ext is not None else None

    return read


def _character_reader(a11y: A11y, view: Ref, at: Point, axis: int) -> Callable[[], int | None] | None:
    """In a text view (its own bounds stay put while its text scrolls): the position of the
    character under the point, or None when the view cannot place one there."""
    offset = a11y.offset_at_point(view, round(at.x), round(at.y))
    if offset is None or a11y.character_extents(view, offset) is None:
        return None

    def read() -> int | None:
        ext = a11y.character_extents(view, offset)
        return ext[axis] if ext is not None else None

    return read


def _text_view_under(a11y: A11y, found: Ref, role: int, at: Point) -> Ref | None:
    """``found`` (of ``role``) when it is a text view; for a holder, the text view it is the
    viewport of (Qt: its parent), else the first text view inside it (breadth first) whose bounds
    hold the point."""
    if role in TEXT_VIEW_ROLES:
        return found
    if role not in HOLDER_ROLES:
        return None
    parent = a11y.parent(found)
    if parent is not None and a11y.role(parent) in TEXT_VIEW_ROLES and _holds(a11y.extents(parent), at):
        return parent
    level, seen = a11y.children(found), 0
    while level and seen < TEXT_VIEW_SEARCH_NODES:
        nxt: list[Ref] = []
        for node in level[: TEXT_VIEW_SEARCH_NODES - seen]:
            seen += 1
            role = a11y.role(node)
            if role in TEXT_VIEW_ROLES:
                if _holds(a11y.extents(node), at):
                    return node
            elif role in HOLDER_ROLES:
                nxt.extend(a11y.children(node))
        level = nxt
    return None


def _inside_scrolling(a11y: A11y, element: Ref) -> bool:
    """Whether a scroll pane or viewport holds ``element`` (below its window): else nothing can
    move it, whatever the wheel does to what it draws."""
    node: Ref | None = element
    for _ in range(WITNESS_DEPTH):
        node = a11y.parent(node) if node is not None else None
        if node is None:
            return False
        role = a11y.role(node)
        if role in SCROLLING_ROLES:
            return True
        if role in TOP_ROLES:
            return False
    return True  # deeper than looked: assume it may move


def _holds(ext: tuple[int, int, int, int] | None, at: Point) -> bool:
    return ext is not None and ext[0] <= at.x < ext[0] + ext[2] and ext[1] <= at.y < ext[1] + ext[3]


def _document_child(a11y: A11y, start: Ref, at: Point) -> Ref | None:
    """Where hit-testing finds nothing (Firefox answers it for none of its windows): the web
    document holding the point, breadth first from ``start``, and its child under the point
    (else its first child with a size)."""
    level, seen = [start], 0
    for _ in range(WITNESS_SEARCH_DEPTH):
        nxt: list[Ref] = []
        for node in level:
            seen += 1
            if seen > WITNESS_SEARCH_NODES:
                return None
            if a11y.role(node) in DOCUMENT_ROLES:
                return _child_under(a11y, node, at)
            nxt.extend(a11y.children(node))
        level = nxt
    return None


def _child_under(a11y: A11y, doc: Ref, at: Point) -> Ref | None:
    first = None
    for child in a11y.children(doc)[:WITNESS_SEARCH_NODES]:
        ext = a11y.extents(child)
        if ext is None or ext[2] <= 0 or ext[3] <= 0:
            continue
        if _holds(ext, at):
            return child
        first = first or child
    return first


def _window_at(s: ActSession, app: RunningApp, at: Point) -> Ref | None:
    """The app's top-level accessible (frame, dialog) whose extents hold the point."""
    a11y = s.a11y
    conn = s.observed.atspi
    buses = conn.apps(Deadline(2.0))
    bus = next((b for b, pid in conn.pids(buses, Deadline(2.0)).items() if pid == app.pid), None)
    if bus is None:
        return None
    for top in a11y.children(Ref(bus, ROOT_PATH)):
        ext = a11y.extents(top)
        if _holds(ext, at):
            return top
    return None
