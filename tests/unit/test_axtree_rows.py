"""Compact grid rows (core/axtree/rows.py): one line a row with its cells' texts, and a line of
its own for what an agent acts on inside the row."""

from __future__ import annotations

from deskhand.core.axtree import AppTree, Element, Observer, WindowTree
from deskhand.core.axtree.rows import COMPACT_MIN_CELLS


def lines(*children: Element) -> list[str]:
    tree = AppTree(
        "org.example.Grid", "Grid", 42, [WindowTree(7, "Grid", Element("AXWindow", children=list(children)))]
    )
    body = Observer().observe(tree, app_key="a", identity="p", key_window_id=7).text.split("\n")[2:]
    return body[: body.index("")] if "" in body else body


def cell(text: str = "", *children: Element, **kw: object) -> Element:
    """A web table cell: its own text and the static text run below it (Chromium shows both)."""
    runs = [Element("AXStaticText", title=text)] if text else []
    return Element("AXCell", value=text or None, children=[*runs, *children], **kw)  # type: ignore[arg-type]


def row(*cells: Element, **kw: object) -> Element:
    return Element("AXRow", children=list(cells), **kw)  # type: ignore[arg-type]


class TestCompactRows:
    def test_a_grid_row_is_one_line_with_its_cells_in_order(self) -> None:
        table = Element("AXTable", children=[row(*(cell(f"r0c{c}") for c in range(6)))])
        assert lines(table)[1:] == ["\tg1:1 table", "\t\tg1:2 row r0c0 | r0c1 | r0c2 | r0c3 | r0c4 | r0c5"]

    def test_empty_cells_keep_their_column_and_trailing_ones_are_dropped(self) -> None:
        table = Element("AXTable", children=[row(cell("a"), cell(), cell("c"), cell("d"), cell(), cell())])
        assert lines(table)[2] == "\t\tg1:2 row a |  | c | d"

    def test_a_row_with_fewer_cells_keeps_the_contract_text_lines(self) -> None:
        cells = [cell(f"c{i}") for i in range(COMPACT_MIN_CELLS - 1)]
        assert lines(Element("AXTable", children=[row(*cells)]))[2:] == [
            "\t\tg1:2 row c0",
            "\t\t\tg1:3 text c1",
            "\t\t\tg1:4 text c2",
        ]

    def test_a_long_row_is_not_cut_at_the_160_character_string_limit(self) -> None:
        cells = [cell(f"value number {c:02d}") for c in range(30)]
        line = lines(Element("AXTable", children=[row(*cells)]))[2]
        assert line.endswith("value number 28 | value number 29"), line
        assert "..." not in line

    def test_a_row_title_other_than_its_first_cell_leads(self) -> None:
        table = Element("AXTable", children=[row(*(cell(f"c{i}") for i in range(4)), title="Row 7")])
        assert lines(table)[2] == "\t\tg1:2 row Row 7: c0 | c1 | c2 | c3"

    def test_what_is_acted_on_keeps_a_line_and_a_handle(self) -> None:
        link = Element("AXLink", title="Edit", url="https://example.com/edit/1")
        box = Element("AXCheckBox", title="Done", value=False)
        field = Element("AXTextField", value="3", settable="string")
        focused = Element("AXCell", value="r0c3", focused=True)
        table = Element(
            "AXTable", children=[row(cell("Alice"), cell("", link), cell("", box), cell("", field), focused)]
        )
        assert lines(table)[2:] == [
            "\t\tg1:2 row Alice | Edit | Done | 3 | r0c3",
            "\t\t\tg1:3 link [Edit](https://example.com/edit/1)",
            "\t\t\tg1:4 check box Done, Value: off",
            "\t\t\tg1:5 text field (settable, string) Value: 3",
            "\t\t\tg1:6 cell Value: r0c3",
        ]

    def test_the_focused_cell_is_the_focus_line(self) -> None:
        focused = Element("AXCell", value="r0c1", focused=True)
        tree = AppTree(
            "g",
            "Grid",
            1,
            [WindowTree(7, "Grid", Element("AXWindow", children=[row(cell("a"), focused, cell("c"), cell("d"))]))],
        )
        text = Observer().observe(tree, app_key="a", identity="p", key_window_id=7).text
        assert text.endswith("The focused UI element is g1:2 cell Value: r0c1."), text

    def test_a_compact_row_keeps_its_ids_across_reads(self) -> None:
        link = Element("AXLink", title="Open", locator="88@7")
        grid = Element("AXTable", children=[row(cell("a"), cell("b"), cell("c"), cell("", link), locator="90@3")])
        observer = Observer()
        observer.observe(AppTree("g", "G", 1, [WindowTree(7, "G", grid)]), app_key="a", identity="p", key_window_id=7)
        again = observer.observe(
            AppTree("g", "G", 1, [WindowTree(7, "G", grid)]), app_key="a", identity="p", key_window_id=7
        )
        assert again.text.startswith("There has been no change"), again.text
        assert again.ids[2] is link

    def test_a_selected_row_still_renders_its_children(self) -> None:
        table = Element("AXTable", children=[row(*(cell(f"c{i}") for i in range(4)), selected=True)])
        assert lines(table)[2:4] == ["\t\tg1:2 row (selected) c0 | c1 | c2 | c3", "\t\t\tg1:3 cell Value: c0"]
