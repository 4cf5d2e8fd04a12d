"""type_text Unicode chunks (native-contract.md 6.6): at most 64 UTF-16 units, graphemes whole."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from deskhand.core.textchunks import graphemes, unicode_chunks


def units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_empty_text_has_no_chunks() -> None:
    assert unicode_chunks("") == []


def test_ascii_splits_at_64_units() -> None:
    chunks = unicode_chunks("x" * 130)
    assert [len(c) for c in chunks] == [64, 64, 2]


def test_surrogate_pair_is_not_split_at_the_boundary() -> None:
    chunks = unicode_chunks("x" * 63 + "😀" + "y")
    assert chunks == ["x" * 63, "😀y"]


def test_graphemes_stay_whole() -> None:
    family = "👨\u200d👩\u200d👧"
    flag = "🇫🇷"
    thumbs = "👍🏽"
    accented = "e\u0301"
    assert graphemes(f"a{family}{flag}{thumbs}{accented}\r\n") == ["a", family, flag, thumbs, accented, "\r\n"]
    assert graphemes("🇫🇷🇩🇪") == ["🇫🇷", "🇩🇪"]


def test_a_cluster_is_moved_whole_to_the_next_chunk() -> None:
    chunks = unicode_chunks("x" * 62 + "e\u0301\u0302")
    assert chunks == ["x" * 62, "e\u0301\u0302"]


@given(st.text(), st.integers(4, 80))
def test_chunks_rejoin_and_respect_the_limit(text: str, limit: int) -> None:
    chunks = unicode_chunks(text, limit)
    assert "".join(chunks) == text
    for chunk in chunks:
        assert chunk
        assert units(chunk) <= limit or len(graphemes(chunk)) == 1
