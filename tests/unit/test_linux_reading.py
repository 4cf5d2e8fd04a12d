"""Linux reading rules that need no display: the visible-part reader never lists a managed
container's children and stays within its caps; the mapping's text and noise rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from deskhand.backends.base import ProcessIdentity, RunningApp
from deskhand.backends.linux.atspi import visible
from deskhand.backends.linux.atspi.calls import TEXT
from deskhand.backends.linux.atspi.connection import Call, Failed, Node, Snapshot
from deskhand.backends.linux.atspi.enums import Role, State
from deskhand.backends.linux.atspi.mapping import AtspiRef, element_tree
from deskhand.backends.linux.atspi.nodes import inline_cell
from deskhand.backends.linux.atspi.roles import EDITABLE, FOCUSABLE, FOCUSED, MANAGES_DESCENDANTS
from deskhand.backends.linux.atspi.walk import Walker
from deskhand.backends.linux.observe.placement import Origin, content_origin
from deskhand.backends.linux.observe.tree import app_tree
from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.core.axtree.model import Element
from deskhand.core.geometry import Rect

BUS = ":1.9"
SHOWING = 1 << 25
ROWS, COLS = 1_048_576, 16_384


class FakeApp:
    """An app on the bus as the readers see it: every call is recorded, and ``answer`` gives each
    one's reply (a subclass answers like one toolkit)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []

    def ask(self, calls: Sequence[Call], plan: Sequence[Call] = ()) -> list[Any]:
        self.calls.extend(calls)
        return [self.answer(c) for c in calls]

    def answer(self, c: Call) -> Any:
        raise NotImplementedError


class SheetApp(FakeApp):
    """Answers AT-SPI calls like LibreOffice Calc's sheet: 50 x 23 cells on screen of a huge table."""

    def answer(self, c: Call) -> Any:
        if c.method == "GetExtents":
            return ((0, 0, 1840, 850),) if c.path == "/table" else ((0, 0, 80, 17),)
        if c.method == "Get" and c.body[1] in ("NRows", "NColumns"):
            return (("i", ROWS if c.body[1] == "NRows" else COLS),)
        if c.method == "GetAccessibleAtPoint":
            x, y, _ = c.body
            return ((BUS, f"/cell/{min(y // 17, 49)}/{min(x // 80, 22)}"),)
        if c.method == "GetIndexInParent":
            _, _, row, col = c.path.split("/")
            return (int(row) * COLS + int(col),)
        if c.method in ("GetRowAtIndex", "GetColumnAtIndex"):
            index = c.body[0]
            return (index // COLS if c.method == "GetRowAtIndex" else index % COLS,)
        if c.method == "GetAccessibleAt":
            return ((BUS, f"/cell/{c.body[0]}/{c.body[1]}"),)
        if c.method == "GetState":
            return ([SHOWING, 0],)
        if c.method == "GetRole":
            return (56,)
        if c.method == "Get" and c.body[1] == "Name":
            return (("s", c.path.rsplit("/", 2)[-2] + ":" + c.path.rsplit("/", 1)[-1]),)
        if c.method == "GetText":
            return ("41",) if c.path == "/cell/0/0" else ("",)
        if c.method == "GetInterfaces":
            return (["org.a11y.atspi.Text", "org.a11y.atspi.Component"],)
        if c.method == "Get" and c.body[1] == "NSelectedChildren":
            return (("i", 0),)
        if c.method == "Get" and c.body[1] == "ChildCount":
            return (("i", 2_147_483_647),)  # what Calc's sheet reports
        raise AssertionError(f"unexpected call {c}")


def make_call(path: str, iface: str, method: str, sig: str | None, body: tuple[Any, ...]) -> Call:
    return Call(BUS, path, iface, method, sig, body)


def test_a_managed_sheet_is_read_through_its_table_and_never_listed() -> None:
    app = SheetApp()
    ifaces = frozenset({visible.TABLE, visible.COMPONENT, visible.SELECTION})
    got = visible.read_visible(app.ask, make_call, BUS, "/table", ifaces)
    assert not any(c.method in ("GetChildren", "GetChildAtIndex") for c in app.calls)
    assert 0 < len(got.children) <= visible.MAX_CELLS
    assert got.children[0] == "/cell/0/0"
    assert got.cells["/cell/0/0"].text == "41"
    assert got.note is not None and got.note.endswith(f"of {ROWS} x {COLS}")
    assert len(app.calls) < 2000


def test_must_not_enumerate() -> None:
    assert visible.must_not_enumerate(MANAGES_DESCENDANTS, 3)
    assert visible.must_not_enumerate(0, 2_147_483_647)
    assert visible.must_not_enumerate(0, -1)  # atk-bridge's cached count of a managed container
    assert not visible.must_not_enumerate(0, 40)


def node(
    path: str, role: int, name: str = "", *, parent: str = "", children: list[str] | None = None, **kw: Any
) -> Node:
    return Node(path, role, name, "", SHOWING, frozenset(), parent=parent, children=children or [], **kw)


def snapshot(*nodes: Node) -> Snapshot:
    return Snapshot(BUS, {n.path: n for n in nodes}, [nodes[0].path], "walk")


def test_a_paragraph_shows_its_text_with_embedded_links_and_gtk_type_names_are_dropped() -> None:
    snap = snapshot(
        node("/w", 23, "Doc", children=["/p", "/b"]),
        node("/p", 73, parent="/w", children=["/a"], text="See \ufffc for more."),
        node("/a", 88, "the manual", parent="/p"),
        node("/b", 43, "GtkButton", parent="/w", actions=("clipboard.copy", "click", "")),
    )
    root, _ = element_tree(snap, "/w")
    assert root is not None
    paragraph, button = root.children
    assert paragraph.value == "See the manual for more."
    assert button.title is None
    assert button.actions == ("AXPress",)


def test_a_node_under_two_parents_maps_to_one_element() -> None:
    snap = snapshot(
        node("/w", 23, "Doc", children=["/p1", "/p2"]),
        node("/p1", 39, parent="/w", children=["/pane"]),
        node("/p2", 39, parent="/w", children=["/pane"]),
        node("/pane", 46, "Root", parent="/p1"),
    )
    root, _ = element_tree(snap, "/w")
    assert root is not None
    assert root.children[0].children[0] is root.children[1].children[0]


def test_a_sheet_cell_keeps_its_locator_when_the_app_gives_it_a_new_object() -> None:
    """LibreOffice Calc creates a cell's accessible anew for each read: the cell is known by its
    name in the sheet, not by its object path."""

    def sheet(cell_path: str) -> Snapshot:
        return snapshot(
            node("/w", 23, "Book", children=["/table"]),
            node("/table", 55, "Sheet1", parent="/w", children=[cell_path], child_count=-1, partial="rows 1-1"),
            node(cell_path, 56, "A1", parent="/table", text="41"),
        )

    keys = []
    for path in ("/cell/7", "/cell/93"):
        root, _ = element_tree(sheet(path), "/w")
        assert root is not None
        keys.append(root.children[0].children[0].locator)
    assert keys[0] == keys[1] == "56#A1"


def test_an_enumerated_list_keeps_path_locators() -> None:
    snap = snapshot(node("/w", 23, "W", children=["/l"]), node("/l", 31, parent="/w", children=["/i"], child_count=1),
                    node("/i", 32, "Item", parent="/l"))  # fmt: skip
    root, _ = element_tree(snap, "/w")
    assert root is not None
    assert root.children[0].children[0].locator == "32@i"


class TextRuns(FakeApp):
    """Answers ``Text.GetText`` like Chromium: a link inside a cell is an embedded-object char."""

    texts: ClassVar[dict[str, str]] = {"/plain": "r0c0", "/linked": "\ufffc", "/blank": " "}

    def answer(self, c: Call) -> Any:
        return (self.texts[c.path],)


def test_hypertext_runs_below_a_plain_text_node_are_not_read() -> None:
    text = frozenset({TEXT})
    cells = [
        Node(p, 56, "", "", SHOWING, text, parent="/row", children=[f"{p}/run"], child_count=1)
        for p in ("/plain", "/linked", "/blank")
    ]
    snap = snapshot(node("/row", 90, children=[c.path for c in cells]), *cells)
    fake = TextRuns()
    assert Walker().inline_runs(snap, [(c.path, "/row", i) for i, c in enumerate(cells)], fake)  # type: ignore[arg-type]
    assert [c.method for c in fake.calls] == ["GetText"] * 3
    plain, linked, blank = cells
    assert (plain.text, plain.children, plain.child_count) == ("r0c0", [], 0)
    assert linked.children == ["/linked/run"]  # the link is read
    assert blank.children == ["/blank/run"]  # no text to hold its children


def test_only_plain_unfocused_cells_are_inline() -> None:
    focused, selected = 1 << 12, 1 << 23
    assert inline_cell(Node("/c", 56, "", "", SHOWING, frozenset()))
    assert inline_cell(Node("/h", 10, "", "", SHOWING, frozenset()))
    assert not inline_cell(Node("/c", 56, "", "", SHOWING, frozenset(), children=["/link"]))
    assert not inline_cell(Node("/c", 56, "", "", SHOWING | focused, frozenset()))
    assert not inline_cell(Node("/c", 56, "", "", SHOWING | selected, frozenset()))
    assert not inline_cell(Node("/p", 73, "", "", SHOWING, frozenset()))


def test_a_label_around_an_entry_does_not_repeat_the_entry_name() -> None:
    """Chromium: <label>Name <input></label> is a label whose text is "Name \ufffc" over a static
    text run and the entry (named after the label)."""
    snap = snapshot(
        node("/w", 23, "Form", children=["/label"]),
        node("/label", 29, parent="/w", children=["/run", "/entry"], text="Name \ufffc"),
        node("/run", 116, "Name ", parent="/label", text="Name "),
        node("/entry", 79, "Name", parent="/label", text="ann"),
    )
    root, _ = element_tree(snap, "/w")
    assert root is not None
    assert root.children[0].value == "Name"


def test_a_wayland_window_inset_in_its_surface_is_placed_by_its_view() -> None:
    """Firefox on sway: its frame reads (26, 23, 1280, 972) in its surface (a GTK shadow margin
    around it), the window sway shows is 1280 x 972 at (100, 50): its content starts there."""
    view = Rect(100, 50, 1280, 972)
    xwin = WindowInfo(5, 5, 7, "Firefox", view, view, True, 0, gtk_margins=(0, 0, 0, 0))
    root = Element("AXWindow", frame=Rect(26, 23, 1280, 972))
    assert content_origin(root, xwin, surface=True) == Origin((74, 27), "inset", (1280, 972))
    assert content_origin(root, xwin) is None  # X11: bounds off (0, 0) are on the screen already
    whole = Element("AXWindow", frame=Rect(0, 0, 1280, 972))
    assert content_origin(whole, xwin, surface=True) == Origin((100, 50), "surface", (1280, 972))


def test_gtk4_window_relative_bounds_are_placed_on_the_screen() -> None:
    """GTK 4.8: the window reads (0, 0, 355, 498) inside a 365 x 508 X client at (220, 140)."""
    client = Rect(220, 140, 365, 508)
    xwin = WindowInfo(1, 1, 7, "Calculator", client, client, True, 0)
    button = Element("AXButton", title="7", frame=Rect(16, 300, 55, 40))
    root = Element("AXWindow", title="Calculator", frame=Rect(0, 0, 355, 498), children=[button])
    assert content_origin(root, xwin) == Origin((225, 145), "guess", (355, 498))  # even margins
    assert content_origin(Element("AXWindow", frame=Rect(225, 145, 355, 498)), xwin) is None  # on screen already
    snap = snapshot(
        node("/w", 23, "Calculator", children=["/b"], extents=(0, 0, 355, 498)),
        node("/b", 43, "7", parent="/w", extents=(16, 300, 55, 40)),
    )
    snap.window_relative = True
    app = RunningApp(ProcessIdentity(7, "gnome-calculator", "/usr/bin/gnome-calculator", 1.0), "Calculator")
    origins: dict[int, Origin] = {}
    tree = app_tree(app, snap, xwin, [xwin], origins=origins)
    assert tree.windows[0].root.children[0].frame == Rect(241, 445, 55, 40)
    assert origins == {1: Origin((225, 145), "guess", (355, 498))}


def test_gtk4_each_window_is_placed_by_its_own_origin_and_margins() -> None:
    """Two windows of one GTK 4 app: the key window sets ``_GTK_FRAME_EXTENTS`` (uneven: a
    shadow below), the other keeps even margins. Each window's elements move by that window's
    origin, and each element's path maps to its own window's origin (what the actor uses)."""
    main = WindowInfo(1, 1, 7, "Main", Rect(100, 50, 420, 330), Rect(100, 50, 420, 330), True, 0)
    other = WindowInfo(
        2, 2, 7, "Prefs", Rect(600, 400, 310, 210), Rect(600, 400, 310, 210), True, 1, gtk_margins=(12, 12, 8, 24)
    )
    snap = snapshot(
        node("/w1", 23, "Main", children=["/b1"], extents=(0, 0, 410, 320)),
        node("/b1", 43, "7", parent="/w1", extents=(10, 20, 30, 30)),
        node("/w2", 23, "Prefs", children=["/b2"], extents=(0, 0, 286, 178)),
        node("/b2", 43, "OK", parent="/w2", extents=(5, 6, 40, 20)),
    )
    snap.windows = ["/w1", "/w2"]
    snap.window_relative = True
    app = RunningApp(ProcessIdentity(7, "gnome-calculator", "/usr/bin/gnome-calculator", 1.0), "Calculator")
    origins: dict[int, Origin] = {}
    by_path: dict[str, tuple[int, int]] = {}
    tree = app_tree(app, snap, other, [main, other], origins=origins, by_path=by_path)
    frames = {w.title: w.root.children[0].frame for w in tree.windows}
    assert frames == {"Main": Rect(115, 75, 30, 30), "Prefs": Rect(617, 414, 40, 20)}
    assert {w: (o.at, o.by) for w, o in origins.items()} == {1: ((105, 55), "guess"), 2: ((612, 408), "margins")}
    assert by_path["/b1"] == (105, 55) and by_path["/b2"] == (612, 408)


def test_gtk4_windows_with_the_same_title_are_told_apart_by_the_active_one() -> None:
    """gnome-text-editor titles a new, empty window after the document of the first: both X
    windows have one title. The AT-SPI frame that is ACTIVE is the key window's, the other one
    the remaining window's, whichever order the app lists them in."""
    title = "notes.txt - Text Editor"
    first = WindowInfo(1, 1, 7, title, Rect(40, 60, 700, 520), Rect(40, 60, 700, 520), True, 0)
    second = WindowInfo(2, 2, 7, title, Rect(600, 300, 700, 520), Rect(600, 300, 700, 520), True, 1)
    app = RunningApp(ProcessIdentity(7, "org.gnome.TextEditor", "/usr/bin/gnome-text-editor", 1.0), "Text Editor")
    for order in (["/w1", "/w2"], ["/w2", "/w1"]):
        snap = snapshot(
            node("/w1", 23, title, children=["/v1"], extents=(0, 0, 690, 510)),
            node("/v1", 61, "view", parent="/w1", extents=(0, 40, 690, 470)),
            node("/w2", 23, title, children=["/v2"], extents=(0, 0, 690, 510)),
            node("/v2", 61, "view", parent="/w2", extents=(0, 40, 690, 470)),
        )
        snap.nodes["/w2"].states |= State.ACTIVE.value
        snap.windows = order
        snap.window_relative = True
        tree = app_tree(app, snap, second, [first, second])
        frames = {w.window_id: w.root.children[0].frame for w in tree.windows}
        assert frames == {1: Rect(45, 105, 690, 470), 2: Rect(605, 345, 690, 470)}, order


def test_an_untitled_frame_no_window_shows_is_kept_only_as_a_popup_with_menu_items() -> None:
    """Chromium keeps hidden untitled frames SHOWING (left out), and its folder list is an
    untitled frame too, an override-redirect popup the window manager does not list: one with
    menu items is kept, its menu bar read as a menu."""
    main = WindowInfo(1, 1, 7, "Pick - Chromium", Rect(0, 0, 1200, 900), Rect(0, 0, 1200, 900), True, 0)
    app = RunningApp(ProcessIdentity(7, "chromium", "/usr/lib/chromium/chromium", 1.0), "Chromium")
    snap = snapshot(
        node("/w1", 23, "Pick - Chromium", extents=(0, 0, 1200, 900)),
        node("/hidden", 23, "", children=["/h"], extents=(103, 25, 1030, 88)),
        node("/h", 39, "", parent="/hidden", extents=(103, 25, 1030, 88)),
        node("/popup", 23, "", children=["/bar"], extents=(867, 229, 225, 112)),
        node("/bar", 34, "", parent="/popup", children=["/item"], extents=(867, 229, 225, 112)),
        node("/item", 8, "Bookmarks bar", parent="/bar", extents=(867, 233, 225, 29)),
    )
    snap.windows = ["/w1", "/hidden", "/popup"]
    tree = app_tree(app, snap, main, [main])
    popups = [w.root for w in tree.windows if w.window_id == 0]
    assert [(p.children[0].role, [c.title for c in p.children[0].children]) for p in popups] == [
        ("AXMenu", ["Bookmarks bar"])
    ]


def test_blank_cells_of_a_partly_read_sheet_cost_two_calls_and_are_left_out() -> None:
    app = SheetApp()
    ifaces = frozenset({visible.TABLE, visible.COMPONENT, visible.SELECTION})
    got = visible.read_visible(app.ask, make_call, BUS, "/table", ifaces)
    assert got.children == ["/cell/0/0"]  # the one cell with text ("41")
    assert [c.path for c in app.calls if c.method == "GetRole"] == ["/cell/0/0"]
    cells = sum(1 for c in app.calls if c.method == "GetAccessibleAt")
    assert sum(1 for c in app.calls if c.method in ("GetState", "GetText")) == 2 * cells


class FileList(FakeApp):
    """Answers like Thunar's detailed list (a GTK 3 tree view): 2 rows x 2 columns; the name
    column's cells are container cells (no Text) whose parts are an icon and the file name."""

    NAMES = ("alpha.txt", "beta.txt")

    def answer(self, c: Call) -> Any:
        parts = c.path.split("/")  # /cell/<row>/<col>[/icon|/text]
        if c.method == "GetExtents":
            return ((0, 0, 200, 40),) if c.path == "/tree" else ((0, 0, 100, 20),)
        if c.method == "Get" and c.body[1] in ("NRows", "NColumns"):
            return (("i", 2),)
        if c.method == "GetAccessibleAtPoint":
            x, y, _ = c.body
            return ((BUS, f"/cell/{min(y // 20, 1)}/{min(x // 100, 1)}"),)
        if c.method == "GetIndexInParent":
            return (int(parts[2]) * 2 + int(parts[3]),)
        if c.method in ("GetRowAtIndex", "GetColumnAtIndex"):
            return (c.body[0] // 2 if c.method == "GetRowAtIndex" else c.body[0] % 2,)
        if c.method == "GetAccessibleAt":
            return ((BUS, f"/cell/{c.body[0]}/{c.body[1]}"),)
        if c.method == "GetState":
            return ([SHOWING, 0],)
        if c.method == "GetRole":
            return (56,)
        if c.method == "Get" and c.body[1] == "Name":
            return (("s", ""),)
        if c.method == "GetInterfaces":
            return (["org.a11y.atspi.Component"],)
        if c.method == "Get" and c.body[1] == "ChildCount":
            return (("i", 2),)
        if c.method == "GetChildren":
            return ([(BUS, c.path + "/icon"), (BUS, c.path + "/text")],)
        if c.method == "GetText" and len(parts) == 5:
            return (self.NAMES[int(parts[2])],) if parts[4] == "text" else Failed("no Text")
        if c.method == "GetText":
            return (f"{int(parts[2]) + 1} KiB",) if parts[3] == "1" else Failed("no Text")
        raise AssertionError(f"unexpected call {c}")


def test_a_container_cell_is_named_by_the_texts_of_its_parts() -> None:
    app = FileList()
    ifaces = frozenset({visible.TABLE, visible.COMPONENT})
    got = visible.read_visible(app.ask, make_call, BUS, "/tree", ifaces)
    cells = {p: (c.name, c.text) for p, c in got.cells.items()}
    assert cells == {
        "/cell/0/0": ("alpha.txt", "alpha.txt"),
        "/cell/0/1": ("", "1 KiB"),
        "/cell/1/0": ("beta.txt", "beta.txt"),
        "/cell/1/1": ("", "2 KiB"),
    }
    # Only the cells without a text of their own were asked for their parts.
    assert sorted(c.path for c in app.calls if c.method == "GetChildren") == ["/cell/0/0", "/cell/1/0"]
    # What the cell itself is named stays known: the pre-action check reads that name again.
    assert {c.own_name for c in got.cells.values()} == {""}


class ItemTable(FakeApp):
    """Answers like Dolphin's file view (a KItemListView): its Table says 0 rows of 4 columns
    while it has three named, showing cells."""

    NAMES = ("alpha.txt", "beta.txt", "gamma.txt")

    def answer(self, c: Call) -> Any:
        if c.method == "GetExtents":
            return ((0, 0, 400, 300),) if c.path == "/view" else ((10, 10, 100, 80),)
        if c.method == "Get" and c.body[1] in ("NRows", "NColumns"):
            return (("i", 0 if c.body[1] == "NRows" else 4),)
        if c.method == "Get" and c.body[1] == "ChildCount":
            return (("i", 3 if c.path == "/view" else 0),)
        if c.method == "GetChildAtIndex":
            return ((BUS, f"/item/{c.body[0]}"),)
        if c.method == "GetState":
            return ([SHOWING, 0],)
        if c.method == "GetText":
            return Failed("no Text")
        if c.method == "GetRole":
            return (56,)
        if c.method == "Get" and c.body[1] == "Name":
            return (("s", self.NAMES[int(c.path.rsplit("/", 1)[-1])]),)
        if c.method == "GetInterfaces":
            return (["org.a11y.atspi.Component"],)
        raise AssertionError(f"unexpected call {c}")


def test_a_table_whose_table_interface_says_less_than_its_children_is_read_by_them() -> None:
    app = ItemTable()
    ifaces = frozenset({visible.TABLE, visible.COMPONENT})
    got = visible.read_visible(app.ask, make_call, BUS, "/view", ifaces)
    assert got.children == ["/item/0", "/item/1", "/item/2"]
    assert [got.cells[p].name for p in got.children] == list(ItemTable.NAMES)
    assert got.note is None and got.total == 3


def test_an_element_named_by_its_parts_keeps_its_own_name_for_the_check() -> None:
    snap = snapshot(
        node("/w", 23, "Files", children=["/t"]),
        node("/t", 55, parent="/w", children=["/c"]),
        node("/c", 56, "alpha.txt", parent="/t", own_name=""),
    )
    root, _ = element_tree(snap, "/w")
    assert root is not None
    cell = root.children[0].children[0]
    assert cell.title == "alpha.txt"
    assert isinstance(cell.ref, AtspiRef) and cell.ref.name == ""


def test_a_table_with_rows_off_screen_says_which_rows_are_shown() -> None:
    rows = [f"/r{i}" for i in range(5)]
    snap = snapshot(
        node("/w", 23, "Page", children=["/t"]),
        node("/t", 55, parent="/w", children=rows, child_count=5),
        *(node(r, 90, parent="/t") for r in rows[1:3]),
        *(Node(r, 90, "", "", 0, frozenset(), parent="/t") for r in (rows[0], *rows[3:])),
    )
    root, _ = element_tree(snap, "/w")
    assert root is not None
    assert root.children[0].partial == "rows 2-3 of 5"


class WebPage(FakeApp):
    """Answers a walk like Chromium: a window over a row of two plain cells (their text runs below)."""

    TREE: ClassVar[dict[str, tuple[int, list[str], str]]] = {
        "/w": (23, ["/row"], ""),
        "/row": (90, ["/c1", "/c2"], ""),
        "/c1": (56, ["/c1/run"], "r0c0"),
        "/c2": (56, ["/c2/run"], "r0c1"),
        "/c1/run": (116, [], "r0c0"),
        "/c2/run": (116, [], "r0c1"),
    }

    def __init__(self) -> None:
        super().__init__()
        self.tree = dict(self.TREE)
        self.hypertext, self.visible_is_shown, self.dead = True, False, False
        self.open_menus: set[str] = set()  # no menu the display shows open (``atspi.popups``)

    def grouped(self, groups: list[list[Call]]) -> list[list[Any]]:
        return [self.ask(g) for g in groups]

    def answer(self, c: Call) -> Any:
        role, kids, text = self.tree[c.path]
        if c.method == "GetState":
            return ([SHOWING, 0],)
        if c.method == "GetRole":
            return (role,)
        if c.method == "GetChildren":
            return ([(BUS, k) for k in kids],)
        if c.method == "GetInterfaces":
            return ([TEXT],)
        if c.method == "GetText":
            return (text,)
        if c.method == "Get":
            prop = c.body[1]
            return (("i", len(kids)),) if prop == "ChildCount" else (("s", ""),)
        raise AssertionError(f"unexpected call {c}")


def test_a_hypertext_app_is_not_asked_again_for_roles_nor_cells_for_descriptions() -> None:
    walker, page = Walker(), WebPage()
    reads = []
    for _ in range(3):
        page.calls.clear()
        snap = Snapshot(BUS, {}, ["/w"], "walk")
        assert walker.walk_from(snap, [("/w", "/", 0)], page)  # type: ignore[arg-type]
        reads.append([(c.method, c.path, c.body[1] if c.method == "Get" else "") for c in page.calls])
        assert (snap.nodes["/c1"].role, snap.nodes["/c1"].text, snap.nodes["/c1"].children) == (56, "r0c0", [])
    first, _second, third = reads
    assert ("GetRole", "/c1", "") in first and ("Get", "/c1", "Description") in first
    assert not any(m == "GetRole" for m, _p, _b in third)
    assert ("Get", "/c1", "Description") not in third and ("Get", "/row", "Description") in third
    assert not any(p.endswith("/run") for _m, p, _b in third)  # text runs: never read again
    assert [(m, b) for m, p, b in third if p == "/c1"] == [("GetState", ""), ("GetText", "")]


def test_a_cell_that_gains_a_link_is_read_in_full_again() -> None:
    walker, page = Walker(), WebPage()
    for _ in range(2):
        assert walker.walk_from(Snapshot(BUS, {}, ["/w"], "walk"), [("/w", "/", 0)], page)  # type: ignore[arg-type]
    page.tree = {**WebPage.TREE, "/c2": (56, ["/link"], "\ufffc"), "/link": (88, [], "")}
    snap = Snapshot(BUS, {}, ["/w"], "walk")
    assert walker.walk_from(snap, [("/w", "/", 0)], page)  # type: ignore[arg-type]
    assert snap.nodes["/c2"].children == ["/link"]
    assert snap.nodes["/link"].role == 88


def test_of_several_focused_objects_the_editor_is_the_focus() -> None:
    """Qt marks FOCUSED the widgets whose focus proxy has the focus and every view's current item
    (Kate: its view space, document tab and status bar button beside the editor)."""
    snap = snapshot(
        node("/w", Role.FRAME, "Kate", children=["/space", "/tab", "/button"]),
        node("/space", Role.FILLER, parent="/w", children=["/doc"]),
        node("/doc", Role.TEXT, "notes.txt", parent="/space", text="hello"),
        node("/tab", Role.PAGE_TAB, "notes.txt", parent="/w"),
        node("/button", Role.PUSH_BUTTON, "INSERT", parent="/w"),
    )
    for path in ("/space", "/doc", "/tab", "/button"):
        snap.nodes[path].states |= FOCUSED
    snap.nodes["/doc"].states |= EDITABLE | FOCUSABLE
    snap.nodes["/doc"].interfaces = frozenset({"org.a11y.atspi.EditableText", "org.a11y.atspi.Text"})
    _, focus = element_tree(snap, "/w")
    assert focus is not None and focus.title == "notes.txt" and focus.settable == "string", focus


def test_a_web_document_without_children_shows_its_own_text() -> None:
    """Thunderbird's message body: a document web whose content is its own text."""
    snap = snapshot(
        node("/w", 23, "Write", children=["/body"]), node("/body", 95, "Message body", parent="/w", text="Hi there")
    )
    root, _ = element_tree(snap, "/w")
    assert root is not None and root.children[0].value == "Hi there", root
