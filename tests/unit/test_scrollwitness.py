"""The wheel scroll's measurement (``backends/linux/act/scroll_witness.py``) against simulated apps
whose accessible positions move late, on a fake clock: the distance reported is the distance the
page moved, and it is confirmed stable only when two readings agree."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from deskhand.backends.linux.act.scroll_witness import (
    QUIET_SYNC_S,
    STALL_SYNC_S,
    Windows,
    Witness,
    _inside_scrolling,
    _text_view_under,
    converge,
)
from deskhand.backends.linux.atspi.enums import Role
from deskhand.core.geometry import Point

TOP = 446  # the witness element's position before the scroll


@dataclass
class Page:
    """A page scrolled by the wheel: ``step`` px a notch, animated over ``animation`` s; its
    accessible position is sent ``first`` s after a wheel (the animation's first frame), then
    every ``cadence`` s while it differs (Chromium's location updates), ``end`` px at most."""

    step: int = 120
    animation: float = 0.2
    first: float = 0.02
    cadence: float = 0.5
    end: int = 100_000
    t: float = 0.0
    target: int = 0
    _from: int = 0
    _since: float = 0.0
    _sent: int = 0
    _updates: list[float] = field(default_factory=list)
    wheels: int = 0

    def now(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s

    def scrolled(self, t: float) -> int:
        """Where the page really is at ``t``."""
        k = min(1.0, (t - self._since) / self.animation) if self.animation > 0 else 1.0
        return round(self._from + (self.target - self._from) * k)

    def wheel(self, n: int) -> None:
        self.wheels += 1
        self._from = self.scrolled(self.t)
        self._since = self.t
        self.target = max(0, min(self.end, self.target + n * self.step))
        at = self.t + self.first
        self._updates = [
            at + i * self.cadence for i in range(int((self.animation + 2 * self.cadence) / self.cadence) + 2)
        ]

    def read(self) -> int:
        for at in [u for u in self._updates if u <= self.t]:
            self._sent = self.scrolled(at)
            self._updates.remove(at)
        return TOP - self._sent


def run(page: Page, amount: int, first: int, windows: Windows = Windows()) -> tuple[int, int, bool]:  # noqa: B008
    witness = Witness(page.read, forward=True, windows=windows, clock=page.now, sleep=page.sleep)
    done = converge(page.wheel, witness, amount, first)
    return done.moved, page.scrolled(page.t + 10), done.stable


NATIVE = Windows.of("gtk3", web=False)
#: GTK and Qt as they run here: the position has moved by the first reading after the wheel.
AT_ONCE = {"step": 44, "animation": 0.0, "first": 0.0, "cadence": 0.016}


@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("chromium idle", {}),
        ("chromium loaded: the animation outlasts the first update", {"animation": 0.7}),
        ("chromium loaded: slow updates", {"animation": 0.4, "first": 0.3, "cadence": 0.8}),
        ("firefox", {"step": 114, "animation": 0.0, "first": 0.03, "cadence": 0.06}),
        ("gtk", {"step": 53, "animation": 0.15, "first": 0.01, "cadence": 0.016}),
    ],
)
@pytest.mark.parametrize("amount", [400, 1200])
def test_the_reported_distance_is_where_the_page_is(name: str, kw: dict[str, float], amount: int) -> None:
    page = Page(**kw)  # type: ignore[arg-type]
    moved, really, stable = run(page, amount, max(1, amount // 150))
    assert moved == really, name
    assert stable, name
    assert abs(really - amount) <= page.step / 2 + 1, (name, really)


def test_a_first_frame_is_not_taken_for_the_scroll() -> None:
    """Chromium's first position (a few pixels) comes at once and the rest 500-600 ms later: the
    reading waits for the rest instead of sending dozens of notches more."""
    page = Page(animation=0.3, first=0.01, cadence=0.6)
    witness = Witness(page.read, forward=True, clock=page.now, sleep=page.sleep)
    page.wheel(8)
    got = witness.settle(8 * 10)
    assert got.moved == 960 and got.stable


def test_the_end_of_the_content_stops_the_scroll() -> None:
    page = Page(end=500)
    moved, really, stable = run(page, 1200, 8)
    assert moved == really == 500
    assert stable


def test_content_that_never_holds_still_is_not_stable_and_the_wait_is_bounded() -> None:
    @dataclass
    class Drifting:
        t: float = 0.0

        def read(self) -> int:
            return TOP - int(self.t * 10)  # one pixel every 100 ms, forever

        def sleep(self, s: float) -> None:
            self.t += s

    d = Drifting()
    witness = Witness(d.read, forward=True, clock=lambda: d.t, sleep=d.sleep)
    done = converge(lambda n: None, witness, 1200, 8)
    assert not done.stable
    assert d.t < 30.0


def test_a_vanished_element_ends_the_measurement() -> None:
    seen = iter([TOP, TOP, None])
    witness = Witness(lambda: next(seen, None), forward=True, clock=lambda: 0.0, sleep=lambda s: None)
    got = witness.settle(80)
    assert got.gone and not got.stable


@pytest.mark.parametrize(
    ("kit", "web", "native"),
    [
        ("gtk3", False, True),
        ("gtk4", False, True),
        ("qt6", False, True),
        ("gtk3", True, False),  # web content, or an app that embeds Chromium (Electron)
        ("chromium", False, False),
        ("gecko", False, False),
        ("libreoffice", False, False),
        (None, False, False),
    ],
)
def test_native_content_is_read_with_the_short_windows(kit: str | None, web: bool, native: bool) -> None:
    windows = Windows.of(kit, web=web)
    assert (windows == Windows(QUIET_SYNC_S, STALL_SYNC_S)) is native
    assert (windows == Windows()) is not native


@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("gtk, at once", AT_ONCE),
        ("gtk, animated", {"step": 53, "animation": 0.15, "first": 0.01, "cadence": 0.016}),
        ("firefox", {"step": 114, "animation": 0.0, "first": 0.03, "cadence": 0.06}),
    ],
)
@pytest.mark.parametrize("amount", [29, 400, 1200])
def test_the_short_windows_still_report_where_the_page_is(name: str, kw: dict[str, float], amount: int) -> None:
    page = Page(**kw)  # type: ignore[arg-type]
    moved, really, stable = run(page, amount, max(1, amount // 150), NATIVE)
    assert moved == really, name
    assert stable, name
    assert abs(really - amount) <= page.step / 2 + 1, (name, really)


def test_chromium_content_needs_the_web_windows() -> None:
    """Why web content never gets the short windows (``WEB_ENGINES``): Chromium's late updates
    are misread with them, and read right with the web windows."""
    wrong = run(Page(), 400, 2, NATIVE)
    right = run(Page(), 400, 2)
    assert wrong[0] != wrong[1]
    assert right[0] == right[1] and right[2]


def test_native_content_that_moves_at_once_is_read_in_a_fraction_of_the_web_time() -> None:
    times = []
    for windows in (NATIVE, Windows()):
        page = Page(**AT_ONCE)  # type: ignore[arg-type]
        moved, really, stable = run(page, 29, 1, windows)
        assert (moved, really, stable) == (44, 44, True)
        times.append(page.t)
    native, web = times
    assert native < 0.35 and web > 1.0  # two readings: a quiet window each


def test_a_wheel_that_moves_nothing_ends_after_the_native_stall() -> None:
    page = Page(**AT_ONCE, end=0)  # type: ignore[arg-type]
    moved, really, stable = run(page, 400, 2, NATIVE)
    assert (moved, really, stable) == (0, 0, True)
    assert page.t < 3 * STALL_SYNC_S


class Tree:
    """A fake accessibility tree for the text-view search: role, bounds and children by name."""

    def __init__(self, nodes: dict[str, tuple[int, tuple[int, int, int, int] | None, list[str]]]) -> None:
        self.nodes = nodes

    def role(self, ref: str) -> int:
        return self.nodes[ref][0]

    def extents(self, ref: str) -> tuple[int, int, int, int] | None:
        return self.nodes[ref][1]

    def children(self, ref: str) -> list[str]:
        return self.nodes[ref][2]

    def parent(self, ref: str) -> str | None:
        return next((name for name, node in self.nodes.items() if ref in node[2]), None)


NOTEBOOK = Tree(
    {
        "notebook": (Role.PAGE_TAB_LIST, (0, 0, 600, 400), ["page"]),
        "page": (Role.PAGE_TAB, None, ["pane"]),  # GTK 3: a notebook page has no bounds
        "pane": (Role.SCROLL_PANE, (0, 40, 600, 360), ["ruler", "view", "table"]),
        "ruler": (Role.TEXT, (0, 40, 600, 20), []),
        "view": (Role.TEXT, (0, 60, 600, 340), []),
        "row": (Role.TABLE_ROW, (0, 60, 600, 20), ["cell"]),
        "cell": (Role.TEXT, (0, 60, 600, 20), []),
        "edit": (Role.TEXT, (0, 500, 300, 200), ["viewport"]),  # Qt: the view holds its viewport
        "viewport": (Role.FILLER, (2, 502, 296, 196), []),
        "window": (Role.FRAME, (0, 0, 800, 800), ["notebook", "panel"]),
        "panel": (Role.PANEL, (0, 0, 800, 800), ["canvas"]),
        "canvas": (Role.DRAWING_AREA, (0, 0, 400, 400), []),
        "table": (Role.TABLE, (0, 40, 600, 360), ["row"]),
    }
)


@pytest.mark.parametrize(
    ("found", "at", "view"),
    [
        ("view", (10, 100), "view"),  # a text view itself
        ("notebook", (10, 100), "view"),  # inside holders that hit-testing stopped at
        ("notebook", (10, 45), "ruler"),  # the text view that holds the point
        ("notebook", (700, 100), None),  # none holds it
        ("row", (10, 65), None),  # moving content is no holder: its own bounds are the witness
        ("viewport", (10, 600), "edit"),  # a text view's own viewport
    ],
)
def test_the_text_view_under_the_point_is_found_inside_holders(
    found: str, at: tuple[int, int], view: str | None
) -> None:
    assert _text_view_under(NOTEBOOK, found, NOTEBOOK.role(found), Point(*at)) == view  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("element", "movable"),
    [("row", True), ("cell", True), ("view", True), ("canvas", False), ("panel", False)],
)
def test_only_what_a_scroll_pane_holds_can_move(element: str, movable: bool) -> None:
    assert _inside_scrolling(NOTEBOOK, element) is movable  # type: ignore[arg-type]
