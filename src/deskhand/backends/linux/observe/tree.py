"""An app's accessibility tree for one observation: its bus name, a bounded AT-SPI read, and
the mapping of that read to the core's ``AppTree`` with each window matched to its X window.

An app missing from the accessibility bus has no tree (None): its toolkit has no accessibility
(Tk, SDL, Xt/Xaw, plain Xlib; ``procfs.toolkit``), or has it turned off (a GTK 2 app started
without ``GTK_MODULES=gail:atk-bridge``), and the executor's notice says which, with the fix
for that toolkit (``notices.no_accessibility``). The read has
``observe_timeout_s`` in total and 2 s per call, so a hung app yields a truncated tree (with a
notice) or an ``ax_failed`` error by then.

An image-only observation (``getScreenshot``) may take the app's last complete read again instead
of reading the tree, when the caller proves the app did not change since that read began
(``unchanged_since``: no AT-SPI event from its bus since then, ``executor``). The windows are
read and matched anew every time; a reused read never counts as a new one, so the first event
after it makes the next observation read the tree. A reused read with the same windows gives
the very tree object mapped last time (no one modifies a tree once it is handed out), and the
core's observer then skips its walk as well.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Final, NamedTuple

from deskhand.backends.base import ProcessIdentity, RunningApp
from deskhand.backends.linux import procfs
from deskhand.backends.linux.atspi import mapping, transients
from deskhand.backends.linux.atspi.connection import AtspiConnection, Deadline, Snapshot, registry_gone_text
from deskhand.backends.linux.atspi.enums import Role, State, role_set
from deskhand.backends.linux.observe.placement import Origin, content_origin, decorations_notice, shift
from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.core.axtree.model import AppTree, Element, WindowTree, detach_menu_bar
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

#: Bus names (and toolkits) remembered per pid (then the memo starts over).
MAX_KNOWN_BUSES: Final = 1024
_SHADOWS: Final = 120  # the most client-side shadows a window-relative root holds (both sides of an axis)
_WINDOW_ROLES: Final = role_set(Role.ALERT, Role.DIALOG, Role.FRAME, Role.INTERNAL_FRAME, Role.WINDOW)
#: Toolkits (``procfs.toolkit``) whose accessibility cache is never asked for, only walked.
#: LibreOffice's (its GTK 3 plugin says ToolkitName "gtk"): its atk-bridge cache keeps objects of
#: closed documents that were freed, and ``Cache.GetItems`` refs each, so soffice.bin aborts
#: (signal 6 in ``g_object_ref`` under ``g_hash_table_foreach`` in libatk-bridge, in its log): Calc,
#: one instance opening its fourth document in a row, died in 3 of 12 runs of the task suite's Calc file.
NO_CACHE_TOOLKITS: Final = frozenset({"libreoffice"})

#: A pid's mapped popup windows (override-redirect) as (x, y, width, height).
PidPopups = Callable[[int], Sequence[tuple[int, int, int, int]]]

#: The app's windows and key window, as the capture worker read them.
Seen = Future[tuple[list[WindowInfo], WindowInfo | None]]
#: What ``TreeObserver.read`` returns: the tree (None: no accessibility), notices, the key window.
TreeRead = tuple[AppTree | None, list[str], WindowInfo | None]


class Read(NamedTuple):
    """An app's last complete tree read: its process, bus name, when it began, and the read."""

    identity: ProcessIdentity
    bus: str
    began: float
    snapshot: Snapshot


class Mapped(NamedTuple):
    """A read mapped to the core's tree, with what it was mapped from and the origins found."""

    snap: Snapshot
    key: WindowInfo | None
    wins: tuple[WindowInfo, ...]
    tree: AppTree
    origin: Origin | None
    by_path: dict[str, tuple[int, int]]


class TreeObserver:
    """Reads apps' trees over the shared AT-SPI connection, and remembers each pid's bus name."""

    def __init__(self, atspi: AtspiConnection, timeout_s: float, popups: PidPopups | None = None) -> None:
        self.atspi = atspi
        self.timeout_s = timeout_s
        #: pid -> its mapped popup windows (the display server's), for menus that do not say SHOWING
        self.popups = popups
        #: pid -> the bus name it had on the accessibility bus (checked again before each use).
        self.buses: dict[int, str] = {}
        #: pid -> its last complete read (module docstring)
        self._reads: dict[int, Read] = {}
        #: how many reads were taken again instead of reading the tree (a count for benchmarks)
        self.reused = 0
        #: pid -> the tree last mapped from a read, with what it was mapped from: the same read
        #: and the same windows give that very tree object again (the observer then skips its walk)
        self._mapped: dict[int, Mapped] = {}

    def read(
        self,
        app: RunningApp,
        identity: ProcessIdentity,
        seen: Seen,
        *,
        unchanged_since: Callable[[str, float], bool] | None = None,
        window_relative: bool = False,
    ) -> TreeRead:
        """The app's tree (None: its toolkit has no accessibility), notices about it (a truncated
        read; on Wayland, a key window whose frame outgrows it placed by a guess,
        ``placement.decorations_notice``), and its key window (``seen``: the app's windows and key
        window, read by the capture worker while the tree is read). With
        ``unchanged_since(bus, began)``, the last complete read is taken again when it says the app
        has not changed since that read began (module docstring).
        ``window_relative``: every window's bounds are relative to it (a Wayland client's).

        Raises:
            NativeError: ``ax_failed`` when the registry that lists the apps is gone (with how to
                start it), or when the app did not answer in time.
        """
        bus = self.bus_of(app.pid)
        notices: list[str] = []
        if bus is None:  # screenshot-only; the notice names the toolkit's fix (``notices.no_accessibility``)
            if self.atspi.registry_error is not None:  # no app is on the bus while the registry is gone
                raise NativeError("ax_failed", registry_gone_text(str(self.atspi.address), self.atspi.registry_error))
            return None, notices, seen.result()[1]
        last = self._reads.get(app.pid)
        t0 = time.monotonic()
        if (
            unchanged_since is not None
            and last is not None
            and (last.identity, last.bus) == (identity, bus)
            and unchanged_since(bus, last.began)
        ):
            snap = last.snapshot
            self.reused += 1
        else:
            if procfs.toolkit_of(identity) in NO_CACHE_TOOLKITS:
                self.atspi.walk_only(bus)
            pid, find = app.pid, self.popups
            snap = self.atspi.snapshot(bus, Deadline(self.timeout_s), None if find is None else lambda: find(pid))
            snap.window_relative = snap.window_relative or window_relative
            snap.surface_relative = window_relative
            self._remember(app.pid, Read(identity, bus, t0, snap))
        # the seconds it really waited (a call's own cap or the cell's deadline may come first)
        waited = f"{time.monotonic() - t0:.1f}"
        if snap.timed_out and not snap.nodes:
            raise NativeError(
                "ax_failed",
                f"{app.display_name} (pid {app.pid}) did not answer accessibility requests for "
                f"{waited} s; the app may be hung. Nothing was read.",
            )
        xwins, key = seen.result()
        own = [w for w in xwins if w.pid == app.pid]
        tree, origin, by_path = self._map(app, snap, key, own)
        if len(own) < len(xwins):
            tree = self._with_children(app, tree, key, xwins)
        if origin is not None:
            self.atspi.origins[bus] = origin.at
        else:
            self.atspi.origins.pop(bus, None)
        if by_path:
            self.atspi.path_origins[bus] = by_path
        else:
            self.atspi.path_origins.pop(bus, None)
        if snap.timed_out:
            tree.truncated = tree.timed_out = True
            notices.append(
                f"The accessibility tree is incomplete: {app.display_name} stopped answering; deskhand "
                f"waited {waited} s (the app may be busy or hung)."
            )
        if snap.surface_relative and key is not None:  # Wayland: a key window placed by a guess says so
            inset = decorations_notice(origin, (round(key.frame.width), round(key.frame.height)))
            notices.extend([inset] if inset else [])
        return tree, notices, key

    def _with_children(
        self, app: RunningApp, tree: AppTree, key: WindowInfo | None, xwins: list[WindowInfo]
    ) -> AppTree:
        """``tree`` with the windows of the app's child processes among ``xwins`` (a plug-in's
        dialog, ``x11.ownership.family``) read from each child's own bus, the key window first; a
        child that is not on the bus or does not answer in time adds nothing."""
        trees, focused = list(tree.windows), tree.focused
        for pid in dict.fromkeys(w.pid for w in xwins if w.pid != app.pid):
            bus = self.bus_of(pid)
            if bus is None:
                continue
            snap = self.atspi.snapshot(bus, Deadline(self.timeout_s))
            if snap.timed_out and not snap.nodes:
                continue
            child = app_tree(app, snap, key, [w for w in xwins if w.pid == pid])
            trees.extend(child.windows)
            if key is not None and key.pid == pid:
                focused = child.focused
        # open menus (window 0) over the key window, then the rest, as ``app_tree`` orders them
        trees.sort(key=lambda t: 0 if t.window_id == 0 else 1 if key is not None and t.window_id == key.id else 2)
        return dataclasses.replace(tree, windows=trees, focused=focused)

    def _map(
        self, app: RunningApp, snap: Snapshot, key: WindowInfo | None, xwins: list[WindowInfo]
    ) -> tuple[AppTree, Origin | None, dict[str, tuple[int, int]]]:
        """``app_tree`` of the read, the key window's origin (``placement.Origin``) and each element's window origin
        (by path); the last ones again when the read and the windows are those they came from."""
        wins = tuple(xwins)
        last = self._mapped.get(app.pid)
        if last is not None and last.snap is snap and last.key == key and last.wins == wins and not snap.timed_out:
            return last.tree, last.origin, last.by_path
        origins: dict[int, Origin] = {}
        by_path: dict[str, tuple[int, int]] = {}
        tree = app_tree(app, snap, key, xwins, origins=origins, by_path=by_path)
        origin = origins.get(key.id) if key is not None else None
        if len(self._mapped) >= MAX_KNOWN_BUSES:
            self._mapped.clear()
        self._mapped[app.pid] = Mapped(snap, key, wins, tree, origin, by_path)
        return tree, origin, by_path

    def _remember(self, pid: int, read: Read) -> None:
        """Keep a complete read for reuse (an incomplete one only forgets the last)."""
        if read.snapshot.timed_out or read.snapshot.capped:
            self._reads.pop(pid, None)
            return
        if len(self._reads) >= MAX_KNOWN_BUSES:
            self._reads.clear()
        self._reads[pid] = read

    def bus_of(self, pid: int) -> str | None:
        """The pid's bus name: the one found last time while the bus daemon still says it is
        this pid's (unique names are never reused, so it is the same live connection), else the
        registry's."""
        known = self.buses.get(pid)
        if known is not None and self.atspi.pids([known], Deadline(2.0)).get(known) == pid:
            return known
        buses = self.atspi.apps(Deadline(2.0))
        pids = self.atspi.pids(buses, Deadline(2.0))
        bus = self.atspi.with_windows([b for b, p in pids.items() if p == pid], Deadline(2.0))
        if bus is None:
            self.buses.pop(pid, None)
        else:
            if len(self.buses) >= MAX_KNOWN_BUSES:
                self.buses.clear()
            self.buses[pid] = bus
        return bus


def app_tree(
    app: RunningApp,
    snap: Snapshot,
    key: WindowInfo | None,
    xwins: list[WindowInfo],
    *,
    origins: dict[int, Origin] | None = None,
    by_path: dict[str, tuple[int, int]] | None = None,
) -> AppTree:
    """The core's tree of ``snap``, each window matched to its X window. An app whose bounds are
    window-relative (GTK 4) has each matched window's elements placed on the screen, and that
    window's origin, with how it was found, put in ``origins`` (by X window id) and, for each of its elements, in
    ``by_path`` (by object path: the actor places an element by its own window's origin)."""
    trees: list[WindowTree] = []
    focused: Element | None = None
    menu_bar: Element | None = None
    mapped: dict[str, Element] = {}  # one element per object, however many parents list it
    claimed: set[int] = set()  # X windows matched so far
    for path in snap.windows:
        node = snap.nodes.get(path)
        if node is None or not node.showing:
            continue
        root, focus = mapping.element_tree(snap, path, mapped)
        if root is None:
            continue
        if node.role not in _WINDOW_ROLES:
            root.role = "AXWindow"  # a top-level file chooser, menu or popup is a window too
        xwin = _match_window(
            root, xwins, claimed, active=bool(node.states & State.ACTIVE), key=key, relative=snap.window_relative
        )
        if xwin is not None:
            claimed.add(xwin.id)
        # an untitled frame no managed window shows (Chromium keeps hidden ones SHOWING) is left
        # out; one with menu items is an open popup of the app (Chromium's Bookmark dialog's
        # folder list: an override-redirect window the window manager does not list)
        if xwin is None and xwins and node.role == Role.FRAME and not root.title and not _as_popup(root):
            continue
        wid = xwin.id if xwin else 0
        origin = content_origin(root, xwin, snap.surface_relative) if snap.window_relative and xwin else None
        if origin is not None:
            paths = shift(root, *origin.at)
            if origins is not None:
                origins[wid] = origin
            if by_path is not None:
                by_path.update(dict.fromkeys(paths, origin.at))
        if key is not None and wid == key.id and menu_bar is None:
            menu_bar = detach_menu_bar(root)
        focused = focused or focus
        trees.append(WindowTree(wid, root.title or (xwin.title if xwin else ""), root, root.frame))
    # The key window first: it is the one the state is about; an open menu of its menu bar
    # is over it, in front of everything.
    trees.sort(key=lambda t: key is None or t.window_id != key.id)
    bars = [menu_bar] if menu_bar is not None else []
    trees[:0] = transients.open_menus(bars, trees)
    return AppTree(
        app_label=app.identity.app_id,
        app_name=app.display_name,
        pid=app.pid,
        windows=trees,
        focused=focused,
        menu_bar=menu_bar,
        truncated=snap.capped,
    )


def without_key_window(tree: AppTree | None, key: WindowInfo) -> bool:
    """Whether a tree with windows has none for the key window read with it: the key window
    closed while the tree was read (a dialog that just closed), and the state would be titled
    after another window (Thunderbird's, for a second after its file chooser closed)."""
    return tree is not None and bool(tree.windows) and all(t.window_id != key.id for t in tree.windows)


def _match_window(
    root: Element, xwins: list[WindowInfo], claimed: set[int], *, active: bool, key: WindowInfo | None, relative: bool
) -> WindowInfo | None:
    """The X window of an AT-SPI window: same client rectangle (for window-relative bounds, the
    one window of that size), else the same title. Among
    windows with the same title (gnome-text-editor titles a new window after the document of
    the last), one matched already is left out, and the key window is the ACTIVE one's. A
    window-relative app's window (a Wayland client's, at (0, 0)) whose title matches none (Qt on
    KWin names none; a GTK alert is "Question" where the compositor shows "Attention") is the
    one window of its size (the tree's root may hold client-side shadows around it)."""
    frame = root.frame
    if frame is not None:
        for w in xwins:
            if _same_rect(w.client, frame) or _same_rect(w.frame, frame):
                return w
        if (frame.x, frame.y) == (0, 0):  # window-relative bounds (Wayland): the one window of
            sized = [w for w in xwins if w.id not in claimed and _same_size(w, frame)]  # that size,
            if len(sized) == 1:  # or the app's only window (Qt's bounds lag a resize at the start)
                return sized[0]
            if len(xwins) == 1 and not claimed:
                return xwins[0]
    titled = [w for w in xwins if root.title and w.title == root.title]
    if len(titled) > 1:
        titled = [w for w in titled if w.id not in claimed]
    if len(titled) > 1 and key is not None and any(w.id == key.id for w in titled):
        titled = [w for w in titled if (w.id == key.id) == active]
    if not titled and relative and frame is not None and (frame.x, frame.y) == (0, 0):
        titled = [w for w in xwins if w.id not in claimed and _fits(w.client, frame)]
    return titled[0] if len(titled) == 1 else None


def _fits(client: Rect, frame: Rect) -> bool:  # ``client`` with at most _SHADOWS pixels of margins
    return 0 <= frame.width - client.width <= _SHADOWS and 0 <= frame.height - client.height <= _SHADOWS


def _as_popup(root: Element) -> bool:
    """Whether a window's tree has a menu item (an open popup list's options); if so, a menu bar
    in it is the popup's menu (Chromium's popup menus say menu bar, and the renderer lists no
    items of a menu bar)."""
    stack, seen, bars, items = [root], set(), [], False
    while stack:
        el = stack.pop()
        if id(el) in seen:
            continue
        seen.add(id(el))
        items = items or el.role == "AXMenuItem"
        if el.role == "AXMenuBar":
            bars.append(el)
        stack.extend(el.children)
    if items:
        for bar in bars:
            bar.role, bar.role_description = "AXMenu", "menu"
    return items


def _same_size(w: WindowInfo, frame: Rect) -> bool:
    return any((r.width, r.height) == (frame.width, frame.height) for r in (w.client, w.frame))


def _same_rect(a: Rect, b: Rect) -> bool:
    return (a.x, a.y, a.width, a.height) == (b.x, b.y, b.width, b.height)
