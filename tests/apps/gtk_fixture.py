"""GTK 3 fixture app: known controls with stable accessible names and an event log.

Run it with Debian's system python (python3-gi), not the venv:

    DESKHAND_EVENT_LOG=/path/events.jsonl /usr/bin/python3 tests/apps/gtk_fixture.py

The log format and the controls are shared with ``qt_fixture.py``; see ``README.md``
in this folder for the JSON line schema and the accessible names.
"""

import os
import signal
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
gi.require_version("GdkX11", "3.0")
gi.require_version("Atk", "1.0")
from gi.repository import Atk, Gdk, GdkX11, GLib, Gtk  # noqa: F401  (GdkX11 registers get_xid)

from _eventlog import (
    CANVAS_SIZE,
    LIST_ROWS,
    QUADRANT_COLOURS,
    SCROLL_AREA_SIZE,
    SCROLL_CONTENT_SIZE,
    EventLog,
    state_names,
)

TITLE = "Deskhand GTK Fixture"
PRGNAME = "deskhand-gtk-fixture"

_SCROLL_DIRECTIONS = {
    Gdk.ScrollDirection.UP: ("up", 0.0, -1.0),
    Gdk.ScrollDirection.DOWN: ("down", 0.0, 1.0),
    Gdk.ScrollDirection.LEFT: ("left", -1.0, 0.0),
    Gdk.ScrollDirection.RIGHT: ("right", 1.0, 0.0),
}


def _xid(gdk_window):
    """The X id of the client window; None on Wayland (GDK_BACKEND=wayland), which has none."""
    get_xid = getattr(gdk_window, "get_xid", None)
    return get_xid() if get_xid is not None else None


def _num(v):
    v = float(v)
    return int(v) if v.is_integer() else round(v, 3)


def _css():
    def rgb(key):
        return "rgb({}, {}, {})".format(*QUADRANT_COLOURS[key])

    def solid(key):
        return f"linear-gradient({rgb(key)}, {rgb(key)})"

    qw, qh = CANVAS_SIZE[0] // 2, CANVAS_SIZE[1] // 2
    line = "rgba(0, 0, 128, 0.35)"
    grid_line = "repeating-linear-gradient({}, " + f"{line} 0px, {line} 1px, transparent 1px, transparent 100px)"
    return f"""
#deskhand-canvas {{
  background-color: black;
  background-image: {solid("top_left")}, {solid("top_right")}, {solid("bottom_left")}, {solid("bottom_right")};
  background-size: {qw}px {qh}px;
  background-repeat: no-repeat;
  background-position: left top, right top, left bottom, right bottom;
}}
#deskhand-scroll-content {{
  background-color: white;
  background-image: {grid_line.format("90deg")}, {grid_line.format("0deg")};
}}
"""


def _name(widget, name):
    widget.get_accessible().set_name(name)
    return widget


class Fixture:
    def __init__(self):
        self.log = EventLog("gtk")
        #: A canvas press waiting for GDK's 2BUTTON_PRESS/3BUTTON_PRESS (see _on_canvas_button).
        self._pending_press = None
        self.win = Gtk.Window(title=TITLE)
        self.win.move(40, 40)
        # GDK merges queued motion events on the native window they arrive on (the toplevel's),
        # before it routes them to the canvas: turn that off there too, so every motion is logged.
        self.win.connect("realize", lambda w: w.get_window().set_event_compression(False))
        self.win.connect("destroy", self._on_destroy)
        self.win.connect("map-event", self._on_map)

        grid = Gtk.Grid(column_spacing=12, row_spacing=10, margin=12)
        self.win.add(grid)

        # Row 0: buttons, checkbox, the secondary-action elements.
        top = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=8)
        for label in ("Apply", "Reset"):
            button = Gtk.Button(label=label)
            button.connect("clicked", self._on_clicked, label)
            self._track_focus(button, label)
            top.pack_start(button, False, False, 0)
        check = Gtk.CheckButton(label="Enable sync")
        check.connect("toggled", lambda w: self.log.emit("toggled", name="Enable sync", active=w.get_active()))
        self._track_focus(check, "Enable sync")
        top.pack_start(check, False, False, 0)
        top.pack_start(self._options_button(), False, False, 0)
        grid.attach(top, 0, 0, 3, 1)

        # Row 1: single-line text field and the slider.
        line = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=8)
        name_label = Gtk.Label(label="Name:")
        self.entry = _name(Gtk.Entry(), "Name")
        self.entry.set_width_chars(30)
        name_label.set_mnemonic_widget(self.entry)
        self.entry.connect("changed", lambda w: self.log.emit("text", name="Name", text=w.get_text()))
        self.entry.connect("notify::cursor-position", self._on_entry_selection)
        self.entry.connect("notify::selection-bound", self._on_entry_selection)
        self._track_focus(self.entry, "Name")
        line.pack_start(name_label, False, False, 0)
        line.pack_start(self.entry, False, False, 0)
        volume_label = Gtk.Label(label="Volume:")
        scale = _name(Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1), "Volume")
        scale.set_digits(0)
        scale.set_round_digits(0)
        scale.set_size_request(300, -1)
        scale.connect("value-changed", lambda w: self.log.emit("value", name="Volume", value=_num(w.get_value())))
        self._track_focus(scale, "Volume")
        line.pack_start(volume_label, False, False, 12)
        line.pack_start(scale, False, False, 0)
        grid.attach(line, 0, 1, 3, 1)

        # Row 2: notes, the list, the canvas.
        grid.attach(self._notes(), 0, 2, 1, 1)
        grid.attach(self._list(), 1, 2, 1, 1)
        grid.attach(self._canvas(), 2, 2, 1, 1)

        # Row 3: the 720x210 scroll area.
        bottom = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=12)
        bottom.pack_start(self._scroll_area(), False, False, 0)
        bottom.pack_start(self._outline(), False, False, 0)
        grid.attach(bottom, 0, 3, 3, 1)

        # Row 4, last, so that expanding it moves nothing else.
        expander = Gtk.Expander(label="Details", halign=Gtk.Align.START)
        expander.add(Gtk.Label(label="Hidden details text", xalign=0.0))
        expander.connect(
            "notify::expanded",
            lambda w, _p: self.log.emit("expanded", name="Details", expanded=w.get_expanded()),
        )
        self._track_focus(expander, "Details")
        grid.attach(expander, 0, 4, 3, 1)

    # ----- builders -------------------------------------------------------------------------

    def _options_button(self):
        button = _name(Gtk.Button(label="Options"), "Options")
        menu = Gtk.Menu()
        for item_label in ("Copy link", "Rename"):
            item = Gtk.MenuItem(label=item_label)
            item.connect("activate", lambda _w, lbl=item_label: self.log.emit("menu_item", name=lbl))
            menu.append(item)
        menu.show_all()
        menu.attach_to_widget(button, None)

        def popup(source):
            self.log.emit("context_menu", name="Options", source=source)
            menu.popup_at_widget(button, Gdk.Gravity.SOUTH_WEST, Gdk.Gravity.NORTH_WEST, None)
            return True

        def on_press(_w, event):
            if event.type == Gdk.EventType.BUTTON_PRESS and event.button == 3:
                return popup("pointer")
            return False

        button.connect("clicked", self._on_clicked, "Options")
        button.connect("button-press-event", on_press)
        button.connect("popup-menu", lambda _w: popup("keyboard"))
        self._track_focus(button, "Options")
        return button

    def _notes(self):
        view = _name(Gtk.TextView(), "Notes")
        view.set_wrap_mode(Gtk.WrapMode.WORD_CHAR)
        buf = view.get_buffer()
        buf.connect("changed", lambda b: self.log.emit("text", name="Notes", text=self._buffer_text(b)))
        buf.connect("notify::cursor-position", lambda b, _p: self._on_notes_selection(b))
        buf.connect("mark-set", lambda b, _it, _m: self._on_notes_selection(b))
        self._track_focus(view, "Notes")
        sw = Gtk.ScrolledWindow()
        sw.set_size_request(330, 300)
        sw.set_policy(Gtk.PolicyType.AUTOMATIC, Gtk.PolicyType.AUTOMATIC)
        sw.set_shadow_type(Gtk.ShadowType.IN)
        sw.add(view)
        return sw

    def _list(self):
        listbox = _name(Gtk.ListBox(), "Rows")
        listbox.set_selection_mode(Gtk.SelectionMode.SINGLE)
        for i in range(1, LIST_ROWS + 1):
            row = _name(Gtk.ListBoxRow(), f"Row {i}")
            row.add(Gtk.Label(label=f"Row {i}", xalign=0.0, margin=4))
            listbox.add(row)
        listbox.connect("selected-rows-changed", self._on_rows_changed)
        sw = Gtk.ScrolledWindow()
        sw.set_size_request(200, 300)
        sw.set_policy(Gtk.PolicyType.NEVER, Gtk.PolicyType.AUTOMATIC)
        sw.set_shadow_type(Gtk.ShadowType.IN)
        sw.add(listbox)
        return sw

    def _outline(self):
        store = Gtk.TreeStore(str)
        group = store.append(None, ["Group A"])
        for child in ("Item A1", "Item A2"):
            store.append(group, [child])
        store.append(None, ["Item B"])
        tree = _name(Gtk.TreeView(model=store), "Outline")
        tree.append_column(Gtk.TreeViewColumn("Outline", Gtk.CellRendererText(), text=0))

        def row_name(path):
            return store[path][0]

        tree.connect(
            "row-expanded", lambda _t, _it, path: self.log.emit("row_expanded", name=row_name(path), expanded=True)
        )
        tree.connect(
            "row-collapsed",
            lambda _t, _it, path: self.log.emit("row_expanded", name=row_name(path), expanded=False),
        )
        tree.connect("row-activated", lambda _t, path, _c: self.log.emit("row_activated", name=row_name(path)))
        self._track_focus(tree, "Outline")
        sw = Gtk.ScrolledWindow()
        sw.set_size_request(220, SCROLL_AREA_SIZE[1])
        sw.set_valign(Gtk.Align.START)
        sw.set_shadow_type(Gtk.ShadowType.IN)
        sw.add(tree)
        return sw

    def _canvas(self):
        # An EventBox paints its CSS background without pycairo (python3-gi-cairo is not
        # a dependency), and it has its own X window, so it receives all pointer events.
        area = _name(Gtk.EventBox(), "Canvas")
        area.get_accessible().set_role(Atk.Role.CANVAS)
        area.set_name("deskhand-canvas")
        area.set_size_request(*CANVAS_SIZE)
        area.set_halign(Gtk.Align.START)
        area.set_valign(Gtk.Align.START)
        area.set_can_focus(True)
        area.add_events(
            Gdk.EventMask.BUTTON_PRESS_MASK
            | Gdk.EventMask.BUTTON_RELEASE_MASK
            | Gdk.EventMask.POINTER_MOTION_MASK
            | Gdk.EventMask.SCROLL_MASK
            | Gdk.EventMask.KEY_PRESS_MASK
            | Gdk.EventMask.KEY_RELEASE_MASK
            | Gdk.EventMask.FOCUS_CHANGE_MASK
        )
        area.connect("realize", lambda w: w.get_window().set_event_compression(False))
        area.connect("button-press-event", self._on_canvas_button)
        area.connect("button-release-event", self._on_canvas_button)
        area.connect("motion-notify-event", self._on_canvas_motion)
        area.connect("scroll-event", self._on_canvas_scroll)
        area.connect("key-press-event", self._on_canvas_key)
        area.connect("key-release-event", self._on_canvas_key)
        self._track_focus(area, "Canvas")
        return area

    def _scroll_area(self):
        content = Gtk.Fixed()
        content.set_size_request(*SCROLL_CONTENT_SIZE)
        width, height = SCROLL_CONTENT_SIZE
        for x in range(0, width, 500):
            for y in range(0, height, 500):
                content.put(Gtk.Label(label=f"{x},{y}"), x + 6, y + 4)
        far = Gtk.Button(label="Far corner")
        far.connect("clicked", self._on_clicked, "Far corner")
        content.put(far, width - 160, height - 60)
        viewport = Gtk.Viewport()
        viewport.set_name("deskhand-scroll-content")
        viewport.add(content)
        sw = _name(Gtk.ScrolledWindow(), "Scroll area")
        sw.set_size_request(*SCROLL_AREA_SIZE)
        sw.set_halign(Gtk.Align.START)
        sw.set_valign(Gtk.Align.START)
        sw.set_hexpand(False)
        sw.set_vexpand(False)
        sw.set_overlay_scrolling(False)
        sw.set_policy(Gtk.PolicyType.ALWAYS, Gtk.PolicyType.ALWAYS)
        sw.add(viewport)
        self.hadj = sw.get_hadjustment()
        self.vadj = sw.get_vadjustment()
        self.hadj.connect("value-changed", self._on_scrolled)
        self.vadj.connect("value-changed", self._on_scrolled)
        return sw

    # ----- handlers -------------------------------------------------------------------------

    def _track_focus(self, widget, name):
        widget.connect("focus-in-event", lambda _w, _e: self.log.emit("focus", name=name) and False)

    def _on_map(self, _win, _event):
        GLib.idle_add(self._emit_ready)
        return False

    def _emit_ready(self):
        gdk_window = self.win.get_window()
        self.log.emit("ready", toolkit="gtk", pid=os.getpid(), title=TITLE, window_id=_xid(gdk_window))
        return False

    def _on_destroy(self, _win):
        self.log.emit("exit", toolkit="gtk", pid=os.getpid())
        Gtk.main_quit()

    def _on_clicked(self, _w, name):
        self.log.emit("clicked", name=name)

    def _on_entry_selection(self, entry, _pspec):
        bounds = entry.get_selection_bounds()
        start, end = bounds if bounds else (entry.get_position(), entry.get_position())
        self.log.emit_changed("selection", "Name", (start, end), start=start, end=end, caret=entry.get_position())

    @staticmethod
    def _buffer_text(buf):
        return buf.get_text(buf.get_start_iter(), buf.get_end_iter(), True)

    def _on_notes_selection(self, buf):
        caret = buf.get_iter_at_mark(buf.get_insert()).get_offset()
        bound = buf.get_iter_at_mark(buf.get_selection_bound()).get_offset()
        start, end = min(caret, bound), max(caret, bound)
        self.log.emit_changed("selection", "Notes", (start, end), start=start, end=end, caret=caret)

    def _on_rows_changed(self, listbox):
        rows = listbox.get_selected_rows()
        indices = [r.get_index() for r in rows]
        self.log.emit("list_selection", name="Rows", indices=indices, rows=[f"Row {i + 1}" for i in indices])

    def _on_scrolled(self, _adj):
        h, v = self.hadj, self.vadj
        self.log.emit(
            "scroll",
            name="Scroll area",
            x=_num(h.get_value()),
            y=_num(v.get_value()),
            max_x=_num(h.get_upper() - h.get_page_size()),
            max_y=_num(v.get_upper() - v.get_page_size()),
        )

    @staticmethod
    def _pointer_fields(event):
        return {
            "x": _num(event.x),
            "y": _num(event.y),
            "x_root": _num(event.x_root),
            "y_root": _num(event.y_root),
            "state": int(event.state) & 0x1FFF,
            "modifiers": state_names(int(event.state)),
        }

    def _on_canvas_button(self, area, event):
        # GDK's click count: the second and third press of a multi-click are each followed at once
        # (queued right behind them) by a 2BUTTON_PRESS / 3BUTTON_PRESS. So a press is held until
        # the next canvas event or the next idle moment and logged with the count GDK decided.
        if event.type == Gdk.EventType.BUTTON_PRESS:
            area.grab_focus()
            self._flush_press()
            self._pending_press = {"button": event.button, "click_count": 1, **self._pointer_fields(event)}
            GLib.idle_add(self._flush_press)
        elif event.type in (Gdk.EventType.DOUBLE_BUTTON_PRESS, Gdk.EventType.TRIPLE_BUTTON_PRESS):
            if self._pending_press is not None and self._pending_press["button"] == event.button:
                triple = event.type == Gdk.EventType.TRIPLE_BUTTON_PRESS
                self._pending_press["click_count"] = 3 if triple else 2
            self._flush_press()
        elif event.type == Gdk.EventType.BUTTON_RELEASE:
            self._flush_press()
            self.log.emit("release", button=event.button, **self._pointer_fields(event))
        return True

    def _flush_press(self):
        if self._pending_press is not None:
            press, self._pending_press = self._pending_press, None
            self.log.emit("press", **press)
        return False

    def _on_canvas_motion(self, _area, event):
        self._flush_press()
        self.log.emit("motion", **self._pointer_fields(event))
        return True

    def _on_canvas_scroll(self, _area, event):
        self._flush_press()
        if event.direction == Gdk.ScrollDirection.SMOOTH:
            _ok, dx, dy = event.get_scroll_deltas()
            direction = "smooth"
        else:
            direction, dx, dy = _SCROLL_DIRECTIONS[event.direction]
        self.log.emit("wheel", direction=direction, delta_x=_num(dx), delta_y=_num(dy), **self._pointer_fields(event))
        return True

    def _on_canvas_key(self, _area, event):
        self._flush_press()
        codepoint = Gdk.keyval_to_unicode(event.keyval)
        self.log.emit(
            "key_press" if event.type == Gdk.EventType.KEY_PRESS else "key_release",
            keysym=Gdk.keyval_name(event.keyval),
            keyval=event.keyval,
            text=chr(codepoint) if codepoint else "",
            keycode=event.hardware_keycode,
            state=int(event.state) & 0x1FFF,
            modifiers=state_names(int(event.state)),
        )
        return True  # keep Tab, arrows and friends on the canvas


def _open_dialog(fixture):
    """SIGUSR1: a modal dialog with one text field opens over the window (as an app's own dialog
    would between an agent's observation and its typing); its field's text goes to the log."""
    dialog = Gtk.Dialog(title="Fixture Dialog", transient_for=fixture.win, modal=True)
    entry = _name(Gtk.Entry(), "Dialog field")
    entry.connect("changed", lambda w: fixture.log.emit("text", name="Dialog field", text=w.get_text()))
    dialog.get_content_area().add(entry)
    dialog.connect("map-event", lambda _w, _e: fixture.log.emit("dialog", name="Fixture Dialog") and False)
    dialog.show_all()
    entry.grab_focus()
    return True


def main():
    GLib.set_prgname(PRGNAME)
    GLib.set_application_name(TITLE)
    provider = Gtk.CssProvider()
    provider.load_from_data(_css().encode())
    Gtk.StyleContext.add_provider_for_screen(
        Gdk.Screen.get_default(), provider, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION
    )
    fixture = Fixture()
    fixture.win.show_all()
    for signum in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signum, lambda: fixture.win.destroy() or False)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, lambda: _open_dialog(fixture))
    Gtk.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
