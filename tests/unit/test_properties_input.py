"""Property tests: key parser, text matcher, screenshot fit, pointer and scroll invariants."""

from __future__ import annotations

import math
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from deskhand.core.errors import ArgumentError, NativeError
from deskhand.core.geometry import Point
from deskhand.core.keys import KEY_ALIASES, MODIFIER_ALIASES, MODIFIER_ORDER, parse_keys
from deskhand.core.pointer import click_events, drag_events, event_numbers, release_after
from deskhand.core.screenshot import MAX_LONG_EDGE, MAX_SHORT_EDGE, fitted_size
from deskhand.core.scroll import scroll_delta
from deskhand.core.textmatch import (
    code_point_to_utf16,
    find_occurrences,
    select_range,
    unique_range,
    utf16_length,
    utf16_to_code_point,
)
from deskhand.core.x11keys import to_x_keysyms

# --- keys --------------------------------------------------------------------------------------

TOKENS = st.sampled_from(
    [t for ts in MODIFIER_ALIASES.values() for t in ts] + [t for ts in KEY_ALIASES.values() for t in ts]
)
KEYISH = st.lists(st.one_of(TOKENS, st.text(max_size=3)), max_size=6).map(
    lambda parts: "".join(p + c for p, c in zip(parts, "+ +\t++ +", strict=False))
)


@given(st.one_of(st.text(), KEYISH))
def test_key_parser_returns_chords_or_unknown_key(text: str) -> None:
    try:
        chords = parse_keys(text)
    except NativeError as error:
        assert error.code == "unknown_key"
        return
    assert chords
    for chord in chords:
        assert chord.key
        assert chord.modifiers <= set(MODIFIER_ORDER)
        mods, keysym = to_x_keysyms(chord.ordered_modifiers(), chord.key)
        assert keysym
        assert len(mods) == len(chord.modifiers - {"fn"})


@given(st.lists(st.tuples(st.sets(st.sampled_from(sorted(MODIFIER_ALIASES))), TOKENS), min_size=1, max_size=5))
def test_key_parser_round_trips_well_formed_chords(spec: list[tuple[set[str], str]]) -> None:
    text = " ".join("+".join([*sorted(mods), key]) for mods, key in spec)
    key_tokens = [key for _, key in spec]
    if any(token.lower() in {t for ts in MODIFIER_ALIASES.values() for t in ts} for token in key_tokens):
        return  # a modifier as the last token is a modifier-only chord, covered above
    chords = parse_keys(text)
    assert len(chords) == len(spec)
    for chord, (mods, _) in zip(chords, spec, strict=True):
        assert set(mods) <= chord.modifiers


# --- text matching -------------------------------------------------------------------------------

SMALL = st.text(alphabet="ab🙂é\u0301", max_size=12)


def _brute_force(source: str, needle: str, prefix: str, suffix: str) -> list[tuple[int, int]]:
    hits = []
    for start in range(len(source) - len(needle) + 1):
        end = start + len(needle)
        if source[start:end] == needle and source[:start].endswith(prefix) and source[end:].startswith(suffix):
            hits.append((utf16_length(source[:start]), utf16_length(needle)))
    return hits


@given(
    st.text(alphabet="ab🙂", max_size=12),
    st.text(alphabet="ab🙂", min_size=1, max_size=3),
    st.text("ab", max_size=2),
    st.text("ab", max_size=2),
)
def test_matcher_agrees_with_brute_force_without_combining_marks(
    source: str, needle: str, prefix: str, suffix: str
) -> None:
    found = [(r.location, r.length) for r in find_occurrences(source, needle, prefix, suffix)]
    assert found == _brute_force(source, needle, prefix, suffix)


@given(SMALL, SMALL, SMALL, SMALL)
def test_matcher_never_crashes_and_errors_are_typed(source: str, needle: str, prefix: str, suffix: str) -> None:
    try:
        found = unique_range(source, needle, prefix, suffix)
    except ArgumentError:
        assert needle == ""
        return
    except NativeError as error:
        assert error.code in {"text_not_found", "ambiguous_text"}
        return
    assert 0 <= found.location <= found.end <= utf16_length(source)
    start, end = utf16_to_code_point(source, found.location), utf16_to_code_point(source, found.end)
    assert unicodedata.normalize("NFD", source[start:end]) == unicodedata.normalize("NFD", needle)
    assert source[:start].endswith(prefix)
    assert source[end:].startswith(suffix)


@given(st.text(alphabet="xyz", min_size=1, max_size=4), st.text(alphabet="xyz", max_size=8))
def test_cursor_modes_bracket_the_text_range(needle: str, rest: str) -> None:
    source = "<" + needle + ">" + rest.replace("<", "")
    whole = select_range(source, needle, prefix="<", suffix=">")
    assert select_range(source, needle, prefix="<", suffix=">", mode="cursor_before").location == whole.location
    assert select_range(source, needle, prefix="<", suffix=">", mode="cursor_after").location == whole.end


@given(st.text())
def test_utf16_conversions_round_trip(text: str) -> None:
    for index in range(len(text) + 1):
        assert utf16_to_code_point(text, code_point_to_utf16(text, index)) == index
    assert (
        code_point_to_utf16(text, len(text))
        == utf16_length(text)
        == len(text.encode("utf-16-le", "surrogatepass")) // 2
    )


# --- screenshot fit ------------------------------------------------------------------------------

SIZES = st.floats(min_value=1e-3, max_value=1e7, allow_nan=False, allow_infinity=False)


@given(SIZES, SIZES)
def test_fit_bounds_and_rounding(width: float, height: float) -> None:
    fitted = fitted_size(width, height)
    assert fitted.width >= 1
    assert fitted.height >= 1
    assert max(fitted.width, fitted.height) <= max(MAX_LONG_EDGE, 1)
    assert min(fitted.width, fitted.height) <= MAX_SHORT_EDGE
    assert 0 < fitted.pixels_per_point <= 1
    # rounded up, and by less than one pixel
    for points, pixels in ((width, fitted.width), (height, fitted.height)):
        exact = points * fitted.pixels_per_point
        assert pixels >= 1
        assert pixels >= math.floor(exact * (1 - 1e-12))
        assert pixels - exact < 1 + 1e-6 * max(1.0, exact)


@given(st.integers(1, 20000), st.integers(1, 20000))
def test_fit_is_symmetric(width: int, height: int) -> None:
    a, b = fitted_size(width, height), fitted_size(height, width)
    assert (a.width, a.height, a.pixels_per_point) == (b.height, b.width, b.pixels_per_point)


# --- pointer and scroll ----------------------------------------------------------------------------

COORD = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@given(COORD, COORD, COORD, COORD, st.integers(0, 5))
def test_no_button_stays_pressed_after_a_failed_drag(x0: float, y0: float, x1: float, y1: float, failed: int) -> None:
    events = drag_events(Point(x0, y0), Point(x1, y1), "left", event_numbers())
    release = release_after(events, failed)
    assert (release is not None) == (1 <= failed <= 4)
    if release is not None:
        assert release.event_number == events[0].event_number
        assert release.point == events[failed - 1].point


@given(st.integers(1, 3), st.integers(0, 6))
def test_no_button_stays_pressed_after_a_failed_click(count: int, failed: int) -> None:
    events = click_events(Point(0, 0), "left", count, event_numbers())
    release = release_after(events, min(failed, len(events)))
    posted = events[: min(failed, len(events))]
    assert (release is not None) == (len(posted) % 2 == 1)


@given(st.sampled_from(["up", "down", "left", "right"]), st.floats(min_value=1e-9, max_value=10), SIZES)
def test_scroll_sign_and_axis(direction: str, pages: float, extent: float) -> None:
    delta = scroll_delta(direction, pages, extent)  # type: ignore[arg-type]
    vertical = direction in ("up", "down")
    assert (delta.dx == 0) if vertical else (delta.dy == 0)
    value = delta.dy if vertical else delta.dx
    assert (value <= 0) if direction in ("down", "right") else (value >= 0)
    assert abs(abs(value) - extent * pages) <= 0.5 + 1e-9 * extent * pages
