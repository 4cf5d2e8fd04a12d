"""Qt 6 fixture app: known controls with stable accessible names and an event log.

Run it with the venv python (PySide6):

    DESKHAND_EVENT_LOG=/path/events.jsonl .venv/bin/python tests/apps/qt_fixture.py

The log format and the controls are shared with ``gtk_fixture.py``; see ``README.md``
in this folder for the JSON line schema and the accessible names.
"""

import ctypes
import ctypes.util
import os
import signal
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
os.environ.setdefault("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSlider,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from _eventlog import (
    CANVAS_SIZE,
    LIST_ROWS,
    QUADRANT_COLOURS,
    SCROLL_AREA_SIZE,
    SCROLL_CONTENT_SIZE,
    EventLog,
    state_names,
)

TITLE = "Deskhand Qt Fixture"
APP_NAME = "deskhand-qt-fixture"

_BUTTONS = {
    Qt.MouseButton.LeftButton: 1,
    Qt.MouseButton.MiddleButton: 2,
    Qt.MouseButton.RightButton: 3,
    Qt.MouseButton.BackButton: 8,
    Qt.MouseButton.ForwardButton: 9,
}
# Qt keyboard modifiers and mouse buttons as X11 core state bits.
_MODIFIER_BITS = {
    Qt.KeyboardModifier.ShiftModifier: 1 << 0,
    Qt.KeyboardModifier.ControlModifier: 1 << 2,
    Qt.KeyboardModifier.AltModifier: 1 << 3,
    Qt.KeyboardModifier.MetaModifier: 1 << 6,
}
_BUTTON_BITS = {
    Qt.MouseButton.LeftButton: 1 << 8,
    Qt.MouseButton.MiddleButton: 1 << 9,
    Qt.MouseButton.RightButton: 1 << 10,
}

_libx11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
_libx11.XKeysymToString.restype = ctypes.c_char_p
_libx11.XKeysymToString.argtypes = [ctypes.c_ulong]


def keysym_name(keysym):
    raw = _libx11.XKeysymToString(keysym) if keysym else None
    return raw.decode() if raw else None


def _num(v):
    v = float(v)
    return int(v) if v.is_integer() else round(v, 3)


def _code_points(text, utf16_offset):
    """Qt offsets count UTF-16 units; the log uses code points, like GTK and AT-SPI."""
    return len(text.encode("utf-16-le")[: 2 * utf16_offset].decode("utf-16-le", errors="ignore"))


def _named(widget, name):
    widget.setAccessibleName(name)
    widget.setObjectName(name)
    return widget


def _x_state(modifiers, buttons):
    state = 0
    for flag, bit in _MODIFIER_BITS.items():
        if modifiers & flag:
            state |= bit
    for flag, bit in _BUTTON_BITS.items():
        if buttons & flag:
            state |= bit
    return state


class Canvas(QWidget):
    """400x300, four solid quadrants; logs every pointer and key event it receives."""

    def __init__(self, log):
        super().__init__()
        self.log = log
        _named(self, "Canvas")
        self.setFixedSize(*CANVAS_SIZE)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)

    def paintEvent(self, _event):
        w, h = CANVAS_SIZE
        painter = QPainter(self)
        origins = {
            "top_left": (0, 0),
            "top_right": (w // 2, 0),
            "bottom_left": (0, h // 2),
            "bottom_right": (w // 2, h // 2),
        }
        for key, (x, y) in origins.items():
            painter.fillRect(x, y, w // 2, h // 2, QColor(*QUADRANT_COLOURS[key]))
        painter.end()

    def focusNextPrevChild(self, _next):
        return False  # keep Tab and Backtab on the canvas

    def _pointer_fields(self, event, buttons):
        state = _x_state(event.modifiers(), buttons)
        local, root = event.position(), event.globalPosition()
        return {
            "x": _num(local.x()),
            "y": _num(local.y()),
            "x_root": _num(root.x()),
            "y_root": _num(root.y()),
            "state": state,
            "modifiers": state_names(state),
        }

    def mousePressEvent(self, event):
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        before = event.buttons() & ~event.button()  # X reports the state before the event
        self.log.emit(
            "press",
            button=_BUTTONS.get(event.button(), 0),
            click_count=1,
            **self._pointer_fields(event, before),
        )

    def mouseDoubleClickEvent(self, event):
        # Qt delivers the second press of a double click as this event instead of a press.
        before = event.buttons() & ~event.button()
        self.log.emit(
            "press",
            button=_BUTTONS.get(event.button(), 0),
            click_count=2,
            **self._pointer_fields(event, before),
        )

    def mouseReleaseEvent(self, event):
        before = event.buttons() | event.button()
        self.log.emit("release", button=_BUTTONS.get(event.button(), 0), **self._pointer_fields(event, before))

    def mouseMoveEvent(self, event):
        self.log.emit("motion", **self._pointer_fields(event, event.buttons()))

    def wheelEvent(self, event):
        angle = event.angleDelta()
        dx, dy = -angle.x() / 120, -angle.y() / 120
        vertical = abs(dy) >= abs(dx)
        direction = ("down" if dy > 0 else "up") if vertical else ("right" if dx > 0 else "left")
        self.log.emit(
            "wheel",
            direction=direction,
            delta_x=_num(dx),
            delta_y=_num(dy),
            **self._pointer_fields(event, event.buttons()),
        )
        event.accept()

    def _key(self, type_, event):
        keysym = event.nativeVirtualKey()
        state = event.nativeModifiers() & 0x1FFF
        self.log.emit(
            type_,
            keysym=keysym_name(keysym),
            keyval=keysym,
            text=event.text(),
            keycode=event.nativeScanCode(),
            state=state,
            modifiers=state_names(state),
            qt_key=int(event.key()),
            auto_repeat=event.isAutoRepeat(),
        )

    def keyPressEvent(self, event):
        self._key("key_press", event)

    def keyReleaseEvent(self, event):
        self._key("key_release", event)


class ScrollContent(QWidget):
    """2000x1500 with a 100-point grid, coordinate labels and one button far away."""

    def __init__(self, on_far_click):
        super().__init__()
        self.setFixedSize(*SCROLL_CONTENT_SIZE)
        width, height = SCROLL_CONTENT_SIZE
        for x in range(0, width, 500):
            for y in range(0, height, 500):
                QLabel(f"{x},{y}", self).move(x + 6, y + 4)
        far = _named(QPushButton("Far corner", self), "Far corner")
        far.move(width - 160, height - 60)
        far.clicked.connect(on_far_click)

    def paintEvent(self, event):
        painter = QPainter(self)
        painter.fillRect(event.rect(), QColor(255, 255, 255))
        painter.setPen(QPen(QColor(150, 150, 200), 1))
        width, height = SCROLL_CONTENT_SIZE
        for x in range(0, width + 1, 100):
            painter.drawLine(x, 0, x, height)
        for y in range(0, height + 1, 100):
            painter.drawLine(0, y, width, y)
        painter.end()


class ContextMenuButton(QPushButton):
    """A push button whose context menu (right click or the Menu key) is logged."""

    def __init__(self, label, log):
        super().__init__(label)
        self.log = log
        self.menu = QMenu(self)
        for item_label in ("Copy link", "Rename"):
            action = self.menu.addAction(item_label)
            action.triggered.connect(lambda _c=False, n=item_label: self.log.emit("menu_item", name=n))

    def contextMenuEvent(self, event):
        source = "pointer" if event.reason() == event.Reason.Mouse else "keyboard"
        self.log.emit("context_menu", name=self.accessibleName(), source=source)
        self.menu.popup(event.globalPos())


class ExposeWatcher(QObject):
    def __init__(self, on_exposed):
        super().__init__()
        self.on_exposed = on_exposed

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Expose and obj.isExposed() and self.on_exposed:
            callback, self.on_exposed = self.on_exposed, None
            QTimer.singleShot(0, callback)
        return False


class Fixture(QMainWindow):
    def __init__(self):
        super().__init__()
        self.log = EventLog("qt")
        self.setWindowTitle(TITLE)
        _named(self, TITLE)
        central = QWidget()
        self.setCentralWidget(central)
        grid = QGridLayout(central)
        grid.setContentsMargins(12, 12, 12, 12)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(10)

        # Row 0: buttons, checkbox, the button with a menu.
        top = QHBoxLayout()
        for label in ("Apply", "Reset"):
            button = _named(QPushButton(label), label)
            button.clicked.connect(lambda _c=False, n=label: self.log.emit("clicked", name=n))
            top.addWidget(button)
        check = _named(QCheckBox("Enable sync"), "Enable sync")
        check.toggled.connect(lambda on: self.log.emit("toggled", name="Enable sync", active=bool(on)))
        top.addWidget(check)
        top.addWidget(self._options_button())
        top.addStretch(1)
        grid.addLayout(top, 0, 0, 1, 3)

        # Row 1: single-line text field and the slider.
        line = QHBoxLayout()
        name_label = QLabel("Name:")
        self.entry = _named(QLineEdit(), "Name")
        self.entry.setFixedWidth(260)
        name_label.setBuddy(self.entry)
        self.entry.textChanged.connect(lambda text: self.log.emit("text", name="Name", text=text))
        self.entry.cursorPositionChanged.connect(self._on_entry_selection)
        self.entry.selectionChanged.connect(self._on_entry_selection)
        line.addWidget(name_label)
        line.addWidget(self.entry)
        line.addSpacing(20)
        line.addWidget(QLabel("Volume:"))
        slider = _named(QSlider(Qt.Orientation.Horizontal), "Volume")
        slider.setRange(0, 100)
        slider.setFixedWidth(300)
        slider.valueChanged.connect(lambda v: self.log.emit("value", name="Volume", value=int(v)))
        line.addWidget(slider)
        line.addStretch(1)
        grid.addLayout(line, 1, 0, 1, 3)

        # Row 2: notes, the list, the canvas.
        self.notes = _named(QPlainTextEdit(), "Notes")
        self.notes.setFixedSize(330, 300)
        self.notes.textChanged.connect(lambda: self.log.emit("text", name="Notes", text=self.notes.toPlainText()))
        self.notes.cursorPositionChanged.connect(self._on_notes_selection)
        self.notes.selectionChanged.connect(self._on_notes_selection)
        grid.addWidget(self.notes, 2, 0)
        self.rows = _named(QListWidget(), "Rows")
        self.rows.addItems([f"Row {i}" for i in range(1, LIST_ROWS + 1)])
        self.rows.setFixedSize(200, 300)
        self.rows.itemSelectionChanged.connect(self._on_rows_changed)
        grid.addWidget(self.rows, 2, 1)
        canvas = Canvas(self.log)
        grid.addWidget(canvas, 2, 2, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)

        # Row 3: the 720x210 scroll area and the outline.
        bottom = QHBoxLayout()
        area = _named(QScrollArea(), "Scroll area")
        area.setFixedSize(*SCROLL_AREA_SIZE)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        area.setWidget(ScrollContent(lambda: self.log.emit("clicked", name="Far corner")))
        self.hbar, self.vbar = area.horizontalScrollBar(), area.verticalScrollBar()
        self.hbar.valueChanged.connect(self._on_scrolled)
        self.vbar.valueChanged.connect(self._on_scrolled)
        bottom.addWidget(area, 0, Qt.AlignmentFlag.AlignTop)
        bottom.addWidget(self._outline(), 0, Qt.AlignmentFlag.AlignTop)
        bottom.addStretch(1)
        grid.addLayout(bottom, 3, 0, 1, 3)

        # Row 4, last, so that expanding it moves nothing else.
        grid.addLayout(self._details(), 4, 0, 1, 3)
        grid.setRowStretch(5, 1)

        for widget in central.findChildren(QWidget):
            if widget.accessibleName() and widget.focusPolicy() != Qt.FocusPolicy.NoFocus:
                widget.installEventFilter(self)

    # ----- builders -------------------------------------------------------------------------

    def _options_button(self):
        button = _named(ContextMenuButton("Options", self.log), "Options")
        button.clicked.connect(lambda: self.log.emit("clicked", name="Options"))
        return button

    def _outline(self):
        tree = _named(QTreeWidget(), "Outline")
        tree.setHeaderLabels(["Outline"])
        tree.setFixedSize(220, SCROLL_AREA_SIZE[1])
        group = QTreeWidgetItem(tree, ["Group A"])
        for child in ("Item A1", "Item A2"):
            QTreeWidgetItem(group, [child])
        QTreeWidgetItem(tree, ["Item B"])
        tree.itemExpanded.connect(lambda item: self.log.emit("row_expanded", name=item.text(0), expanded=True))
        tree.itemCollapsed.connect(lambda item: self.log.emit("row_expanded", name=item.text(0), expanded=False))
        tree.itemActivated.connect(lambda item, _col: self.log.emit("row_activated", name=item.text(0)))
        return tree

    def _details(self):
        box = QVBoxLayout()
        toggle = _named(QToolButton(), "Details")
        toggle.setText("Details")
        toggle.setCheckable(True)
        toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toggle.setArrowType(Qt.ArrowType.RightArrow)
        body = QLabel("Hidden details text")
        body.setVisible(False)

        def on_toggled(expanded):
            toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
            body.setVisible(expanded)
            self.log.emit("expanded", name="Details", expanded=bool(expanded))

        toggle.toggled.connect(on_toggled)
        box.addWidget(toggle, 0, Qt.AlignmentFlag.AlignLeft)
        box.addWidget(body)
        return box

    # ----- handlers -------------------------------------------------------------------------

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.FocusIn:
            self.log.emit("focus", name=obj.accessibleName())
        return False

    def emit_ready(self):
        self.log.emit("ready", toolkit="qt", pid=os.getpid(), title=TITLE, window_id=int(self.winId()))

    def _on_entry_selection(self, *_args):
        text = self.entry.text()
        caret = _code_points(text, self.entry.cursorPosition())
        if self.entry.hasSelectedText():
            start = _code_points(text, self.entry.selectionStart())
            end = _code_points(text, self.entry.selectionEnd())
        else:
            start = end = caret
        self.log.emit_changed("selection", "Name", (start, end), start=start, end=end, caret=caret)

    def _on_notes_selection(self):
        text = self.notes.toPlainText()
        cursor = self.notes.textCursor()
        start = _code_points(text, cursor.selectionStart())
        end = _code_points(text, cursor.selectionEnd())
        caret = _code_points(text, cursor.position())
        self.log.emit_changed("selection", "Notes", (start, end), start=start, end=end, caret=caret)

    def _on_rows_changed(self):
        indices = sorted(self.rows.row(item) for item in self.rows.selectedItems())
        self.log.emit("list_selection", name="Rows", indices=indices, rows=[f"Row {i + 1}" for i in indices])

    def _on_scrolled(self, _value):
        self.log.emit(
            "scroll",
            name="Scroll area",
            x=self.hbar.value(),
            y=self.vbar.value(),
            max_x=self.hbar.maximum(),
            max_y=self.vbar.maximum(),
        )


def main():
    QApplication.setAttribute(Qt.ApplicationAttribute.AA_CompressHighFrequencyEvents, False)
    app = QApplication(sys.argv)
    app.setApplicationName(APP_NAME)
    fixture = Fixture()
    fixture.move(40, 40)
    app.aboutToQuit.connect(lambda: fixture.log.emit("exit", toolkit="qt", pid=os.getpid()))
    fixture.show()
    watcher = ExposeWatcher(fixture.emit_ready)
    fixture.windowHandle().installEventFilter(watcher)
    # Python runs signal handlers only between bytecodes; a short timer lets it see SIGTERM.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: app.quit())
    tick = QTimer()
    tick.start(100)
    tick.timeout.connect(lambda: None)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
