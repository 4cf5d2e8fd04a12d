"""The GTK 3 and Qt 6 fixture apps, checked from their own side: AT-SPI tree, event log, pixels.

Each test starts a fixture inside the session's private desktop (``desktop`` and ``launch``
from ``conftest.py``), drives it with xdotool (a tool we did not write, so a bug in our own
input path cannot hide a bug in the fixture) and reads what the app logged.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from jeepney import DBusAddress, Properties, new_method_call

pytestmark = pytest.mark.desktop

ACCESSIBLE = "org.a11y.atspi.Accessible"
ACTION = "org.a11y.atspi.Action"
COMPONENT = "org.a11y.atspi.Component"
SCREEN_COORDS = 0

# Canvas quadrant colours, as in tests/apps/_eventlog.py (not imported: that folder is the apps').
QUADRANTS = {
    (100, 75): (220, 30, 30),
    (300, 75): (30, 170, 60),
    (100, 225): (30, 70, 220),
    (300, 225): (240, 200, 20),
}

TOOLKITS = {
    "gtk": {
        "app_name": "deskhand-gtk-fixture",
        "title": "Deskhand GTK Fixture",
        "controls": {
            ("frame", "Deskhand GTK Fixture"),
            ("push button", "Apply"),
            ("push button", "Reset"),
            ("push button", "Options"),
            ("check box", "Enable sync"),
            ("text", "Name"),
            ("text", "Notes"),
            ("list box", "Rows"),
            ("list item", "Row 1"),
            ("list item", "Row 40"),
            ("slider", "Volume"),
            ("scroll pane", "Scroll area"),
            ("push button", "Far corner"),
            ("tree table", "Outline"),
            ("table cell", "Group A"),
            ("toggle button", "Details"),
            ("canvas", "Canvas"),
        },
        "row_role": "list item",
        "actions": {
            "Apply": ["click"],
            "Details": ["activate"],
            "Group A": ["expand or contract", "edit", "activate"],
        },
    },
    "qt": {
        "app_name": "deskhand-qt-fixture",
        "title": "Deskhand Qt Fixture",
        "controls": {
            ("frame", "Deskhand Qt Fixture"),
            ("push button", "Apply"),
            ("push button", "Reset"),
            ("push button", "Options"),
            ("check box", "Enable sync"),
            ("text", "Name"),
            ("text", "Notes"),
            ("list", "Rows"),
            ("list item", "Row 1"),
            ("list item", "Row 40"),
            ("slider", "Volume"),
            ("filler", "Scroll area"),
            ("push button", "Far corner"),
            ("tree", "Outline"),
            ("tree item", "Group A"),
            ("check box", "Details"),
            ("filler", "Canvas"),
        },
        "row_role": "list item",
        "actions": {
            "Apply": ["Press", "Set Focus"],
            "Details": ["Toggle", "Press", "Set Focus"],
            "Group A": ["Toggle"],
        },
    },
}


@dataclass
class Node:
    bus: str
    path: str
    role: str
    name: str
    depth: int


class Tree:
    """A plain blocking walk of one app's accessibility tree over the desktop's AT-SPI bus."""

    def __init__(self, conn, timeout_s: float = 2.0) -> None:
        self.conn = conn
        self.timeout_s = timeout_s

    def _call(self, bus: str, path: str, iface: str, method: str, sig: str | None = None, body=()):
        msg = new_method_call(DBusAddress(path, bus, iface), method, sig, body)
        return self.conn.send_and_get_reply(msg, timeout=self.timeout_s).body

    def _prop(self, bus: str, path: str, iface: str, name: str):
        msg = Properties(DBusAddress(path, bus, iface)).get(name)
        return self.conn.send_and_get_reply(msg, timeout=self.timeout_s).body[0][1]

    def walk(self, bus: str, path: str, depth: int = 0) -> Iterator[Node]:
        yield Node(
            bus, path,
            self._call(bus, path, ACCESSIBLE, "GetRoleName")[0],
            self._prop(bus, path, ACCESSIBLE, "Name"),
            depth,
        )  # fmt: skip
        for child_bus, child_path in self._call(bus, path, ACCESSIBLE, "GetChildren")[0]:
            yield from self.walk(child_bus, child_path, depth + 1)

    def actions(self, node: Node) -> list[str]:
        n = self._prop(node.bus, node.path, ACTION, "NActions")
        return [self._call(node.bus, node.path, ACTION, "GetName", "i", (i,))[0] for i in range(n)]

    def extents(self, node: Node) -> tuple[int, int, int, int]:
        x, y, w, h = self._call(node.bus, node.path, COMPONENT, "GetExtents", "u", (SCREEN_COORDS,))[0]
        return x, y, w, h


def find(nodes: list[Node], role: str, name: str) -> Node:
    hits = [n for n in nodes if n.role == role and n.name == name]
    assert len(hits) == 1, f"{len(hits)} nodes are {role} {name!r}"
    return hits[0]


def centre(extents: tuple[int, int, int, int]) -> tuple[int, int]:
    x, y, w, h = extents
    return x + w // 2, y + h // 2


@pytest.fixture
def xdotool(desktop):
    if shutil.which("xdotool") is None:
        pytest.skip("xdotool is not installed (apt-get install xdotool, or run `make test`)")
    env = {**os.environ, "DISPLAY": desktop.env["DISPLAY"]}

    def run(*args: str) -> None:
        subprocess.run(["xdotool", *args], env=env, check=True, timeout=10)

    return run


@pytest.fixture(params=sorted(TOOLKITS))
def fixture_app(request, launch, desktop):
    """(toolkit, running app, its tree nodes, a Tree reader) for each toolkit, ready and on the bus."""
    toolkit = request.param
    running = launch.gtk_fixture() if toolkit == "gtk" else launch.qt_fixture()
    running.events.wait_for("ready", timeout_s=20.0)
    with desktop.a11y() as bus:
        tree = Tree(bus.conn)
        nodes = list(tree.walk(running.a11y.bus_name, running.a11y.path))
        yield toolkit, running, nodes, tree


def test_starts_in_private_desktop_and_logs_ready(fixture_app, desktop):
    toolkit, running, nodes, _tree = fixture_app
    ready = running.events.wait_for("ready")
    assert ready["pid"] == running.pid
    assert ready["toolkit"] == toolkit
    assert ready["title"] == TOOLKITS[toolkit]["title"]
    assert isinstance(ready["window_id"], int) and ready["window_id"] > 0
    assert running.a11y.pid == running.pid
    assert running.a11y.name == TOOLKITS[toolkit]["app_name"]
    assert nodes[0].role == "application"
    # The app was started with the private desktop's display, not the caller's.
    with open(f"/proc/{running.pid}/environ", "rb") as fh:
        env = dict(item.split(b"=", 1) for item in fh.read().split(b"\0") if b"=" in item)
    assert env[b"DISPLAY"].decode() == desktop.env["DISPLAY"]


def test_known_controls_are_on_the_bus(fixture_app):
    toolkit, _running, nodes, tree = fixture_app
    spec = TOOLKITS[toolkit]
    seen = {(n.role, n.name) for n in nodes}
    assert spec["controls"] <= seen, f"missing: {sorted(spec['controls'] - seen)}"
    rows = [n for n in nodes if n.role == spec["row_role"] and n.name.startswith("Row ")]
    assert len(rows) == 40
    for name, expected in spec["actions"].items():
        node = next(n for n in nodes if n.name == name and n.role in {r for r, nm in spec["controls"] if nm == name})
        assert tree.actions(node) == expected, name


def test_scroll_area_and_canvas_have_their_fixed_sizes(fixture_app):
    toolkit, _running, nodes, tree = fixture_app
    area = find(nodes, "scroll pane" if toolkit == "gtk" else "filler", "Scroll area")
    assert tree.extents(area)[2:] == (720, 210)
    canvas = find(nodes, "canvas" if toolkit == "gtk" else "filler", "Canvas")
    assert tree.extents(canvas)[2:] == (400, 300)
    # The list has rows below its visible part.
    window = tree.extents(nodes[1])
    row_40 = find(nodes, "list item", "Row 40")
    rows_box = tree.extents(find(nodes, "list box" if toolkit == "gtk" else "list", "Rows"))
    r40 = tree.extents(row_40)
    assert r40[1] < 0 or r40[1] > rows_box[1] + rows_box[3] or r40[2] <= 0, (r40, rows_box, window)


def test_xdotool_click_on_apply_is_logged(fixture_app, xdotool):
    _toolkit, running, nodes, tree = fixture_app
    x, y = centre(tree.extents(find(nodes, "push button", "Apply")))
    start = running.events.wait_for("ready")["t"]
    xdotool("mousemove", "--sync", str(x), str(y), "click", "1")
    running.events.wait_for("clicked", name="Apply", since=start)
    assert [e["name"] for e in running.events.of_type("clicked")] == ["Apply"]


def test_canvas_logs_pointer_and_keys(fixture_app, xdotool):
    toolkit, running, nodes, tree = fixture_app
    cx, cy, _w, _h = tree.extents(find(nodes, "canvas" if toolkit == "gtk" else "filler", "Canvas"))
    x, y = cx + 50, cy + 40
    xdotool("mousemove", "--sync", str(x), str(y), "click", "1")
    press = running.events.wait_for("press")
    assert (press["x"], press["y"], press["x_root"], press["y_root"]) == (50, 40, x, y)
    assert press["button"] == 1 and press["click_count"] == 1 and press["modifiers"] == []
    release = running.events.wait_for("release")
    assert release["button"] == 1 and "button1" in release["modifiers"]
    running.events.wait_for("focus", name="Canvas")

    xdotool("key", "shift+a")
    key = running.events.wait_for("key_press", keysym="A")
    assert key["text"] == "A" and key["modifiers"] == ["shift"] and key["keyval"] == 0x41
    running.events.wait_for("key_release", keysym="Shift_L")

    xdotool("click", "5")
    wheel = running.events.wait_for("wheel")
    assert (wheel["direction"], wheel["delta_y"], wheel["x_root"], wheel["y_root"]) == ("down", 1, x, y)


def test_canvas_pixels_are_the_known_quadrant_colours(fixture_app, desktop):
    mss = pytest.importorskip("mss")
    toolkit, _running, nodes, tree = fixture_app
    cx, cy, _w, _h = tree.extents(find(nodes, "canvas" if toolkit == "gtk" else "filler", "Canvas"))
    with mss.MSS(display=desktop.env["DISPLAY"]) as screen:
        shot = screen.grab({"left": cx, "top": cy, "width": 400, "height": 300})
    for (qx, qy), rgb in QUADRANTS.items():
        assert shot.pixel(qx, qy) == rgb, (toolkit, qx, qy)


@pytest.mark.parametrize("toolkit", sorted(TOOLKITS))
def test_fixture_is_gone_after_teardown(toolkit, launch, desktop):
    running = launch.gtk_fixture() if toolkit == "gtk" else launch.qt_fixture()
    running.events.wait_for("ready", timeout_s=20.0)
    pid = running.pid
    launch.close()  # what the fixture's teardown does
    # The main thread can show as a zombie while other threads still exit, so reap with a deadline.
    assert running.app.popen.wait(timeout=5.0) is not None
    assert not os.path.exists(f"/proc/{pid}")
    with desktop.a11y() as bus:
        assert bus.wait_gone(pid, timeout_s=5.0)
    # It ended on SIGTERM through its own handler, not by SIGKILL.
    running.events.wait_for("exit", pid=pid, timeout_s=1.0)


# (element, AT-SPI action name, the event it must log) per toolkit. Qt's tree items offer only
# "Toggle", which flips a check state and does not expand, so Qt's second case is "Set Focus",
# the action every focusable Qt widget has besides its primary one.
NAMED_ACTIONS = [
    ("gtk", "Details", "activate", {"type": "expanded", "name": "Details", "expanded": True}),
    ("gtk", "Group A", "expand or contract", {"type": "row_expanded", "name": "Group A", "expanded": True}),
    ("qt", "Details", "Toggle", {"type": "expanded", "name": "Details", "expanded": True}),
    ("qt", "Options", "Set Focus", {"type": "focus", "name": "Options"}),
]


@pytest.mark.parametrize(("toolkit", "element", "action", "event"), NAMED_ACTIONS)
def test_named_actions_are_logged(toolkit, element, action, event, launch, desktop):
    running = launch.gtk_fixture() if toolkit == "gtk" else launch.qt_fixture()
    start = running.events.wait_for("ready", timeout_s=20.0)["t"]
    controls = TOOLKITS[toolkit]["controls"]
    with desktop.a11y() as bus:
        tree = Tree(bus.conn)
        nodes = list(tree.walk(running.a11y.bus_name, running.a11y.path))
        node = next(n for n in nodes if n.name == element and (n.role, n.name) in controls)
        index = tree.actions(node).index(action)
        assert tree._call(node.bus, node.path, ACTION, "DoAction", "i", (index,))[0]
    fields = dict(event)
    running.events.wait_for(fields.pop("type"), since=start, **fields)
