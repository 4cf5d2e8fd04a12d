"""The renderer's rules for what the real apps put in their trees that says nothing: an element
listed under two parents, empty labels, unnamed actions, numbers on roles that have no value,
and blank cells of a partly read spreadsheet (each rule decided here, in the core)."""

from __future__ import annotations

from deskhand.core.axtree import AppTree, Element, Observer, WindowTree


def lines(*children: Element) -> list[str]:
    tree = AppTree(
        "org.example.Docs", "Docs", 42, [WindowTree(7, "Docs", Element("AXWindow", children=list(children)))]
    )
    text = Observer().observe(tree, app_key="a", identity="p", key_window_id=7).text
    body = text.split("\n")[2:]
    return body[: body.index("")] if "" in body else body


def label(text: str | None = None, **kw: object) -> Element:
    return Element("AXStaticText", role_description="label", title=text, **kw)  # type: ignore[arg-type]


class TestSharedElement:
    def test_an_element_under_two_parents_is_rendered_once_at_its_first_place(self) -> None:
        pane = Element("AXGroup", role_description="root pane", title="Doc", children=[label("Hello")])
        first = Element("AXGroup", role_description="panel", title="A", children=[pane])
        second = Element("AXGroup", role_description="panel", title="B", children=[pane])
        got = lines(first, second)
        assert sum("container Doc" in line for line in got) == 1
        assert sum("label Hello" in line for line in got) == 1
        assert [line.split(" ", 1)[1] for line in got] == [
            "window",
            "container A",
            "container Doc",
            "label Hello",
            "container B",
        ]


class TestEmptyLabels:
    def test_an_empty_label_is_left_out(self) -> None:
        got = lines(label(), label("Name"), label(""))
        assert [line.split(" ", 1)[1].strip() for line in got] == ["window", "label Name"]

    def test_a_focused_or_settable_empty_text_stays(self) -> None:
        got = lines(label(focused=True), Element("AXStaticText", role_description="paragraph", settable="string"))
        assert [line.split(" ", 1)[1].strip() for line in got] == [
            "window",
            "label",
            "paragraph (settable, string)",
        ]

    def test_a_label_with_only_a_value_stays_and_shows_it_bare(self) -> None:
        got = lines(Element("AXStaticText", role_description="paragraph", value="First paragraph."))
        assert got[1].split(" ", 1)[1].strip() == "paragraph First paragraph."


class TestActionNames:
    def test_unnamed_actions_are_not_listed(self) -> None:
        button = Element("AXButton", role_description="push button", title="Go", actions=("AXPress", "", ";", " "))
        assert lines(button)[1].split(" ", 1)[1].strip() == "push button Go"

    def test_named_actions_next_to_unnamed_ones_are(self) -> None:
        link = Element("AXButton", role_description="push button", title="Go", actions=("", "AXShowMenu", "jump"))
        assert lines(link)[1].split(" ", 1)[1].strip() == "push button Go, Secondary Actions: jump"


class TestNumbers:
    def test_a_number_on_a_push_button_is_not_a_value(self) -> None:
        assert lines(Element("AXButton", role_description="push button", title="Save", value=0.0))[1].endswith(
            "push button Save"
        )

    def test_a_number_on_a_slider_or_a_check_box_still_is(self) -> None:
        got = lines(
            Element("AXSlider", role_description="slider", title="Volume", value=0.0),
            Element("AXCheckBox", role_description="check box", title="Bold", value=0.0),
        )
        assert got[1].endswith("slider Volume, Value: 0")
        assert got[2].endswith("check box Bold, Value: off")


class TestPartialTable:
    def sheet(self, *cells: Element) -> Element:
        return Element(
            "AXTable",
            role_description="table",
            title="Sheet Sheet1",
            partial="rows 1-12, columns 1-10 of 1048576 x 16384",
            children=list(cells),
        )

    def cell(self, name: str, value: str | None = None, **kw: object) -> Element:
        return Element("AXCell", role_description="table cell", title=name, value=value, **kw)  # type: ignore[arg-type]

    def test_the_table_says_which_part_was_read_and_lists_only_cells_with_something_in_them(self) -> None:
        got = lines(self.sheet(self.cell("A1", "41"), self.cell("B1"), self.cell("C1", focused=True), self.cell("A2")))
        assert [line.split(" ", 1)[1].strip() for line in got] == [
            "window",
            "table Sheet Sheet1, Visible: rows 1-12, columns 1-10 of 1048576 x 16384",
            "table cell A1, Value: 41",
            "table cell C1",
        ]

    def test_a_selected_cell_read_again_after_the_visible_range_is_listed_once(self) -> None:
        # Calc: the selected cells come from Selection after the visible range, as new objects
        again = [self.cell(n, n.lower(), selected=True) for n in ("B1", "A2")]
        got = lines(
            self.sheet(self.cell("A1", "a1"), *again, self.cell("B1", "b1", selected=True), self.cell("Z9", "z9"))
        )
        assert [line.split(" ", 1)[1].strip() for line in got[2:]] == [
            "table cell A1, Value: a1",
            "table cell (selected) B1, Value: b1",
            "table cell (selected) A2, Value: a2",
            "table cell Z9, Value: z9",
        ]

    def test_blank_cells_of_a_fully_read_table_are_kept(self) -> None:
        table = Element("AXTable", role_description="table", children=[self.cell("A1"), self.cell("B1")])
        assert len(lines(table)) == 4


def test_a_shared_element_changing_is_one_diff_line() -> None:
    pane = Element("AXGroup", role_description="root pane", title="Doc", children=[label("Hello")])
    root = Element(
        "AXWindow",
        children=[Element("AXGroup", title="A", children=[pane]), Element("AXGroup", title="B", children=[pane])],
    )
    observer = Observer()
    tree = AppTree("x", "X", 1, [WindowTree(7, "X", root)])
    observer.observe(tree, app_key="a", identity="p", key_window_id=7)
    pane.children[0].title = "Bye"
    text = observer.observe(tree, app_key="a", identity="p", key_window_id=7).text
    assert text.count("label Bye") == 1, text
    assert text.count("\n") == 1, text  # the header and one changed line


class TestSeparators:
    def test_a_bare_separator_is_left_out_and_a_named_one_kept(self) -> None:
        bar = Element(
            "AXToolbar",
            title="Standard",
            children=[
                Element("AXButton", title="New"),
                Element("AXUnknown", role_description="separator", enabled=False),
                Element("AXButton", title="Open"),
                Element("AXUnknown", role_description="separator", title="Recent"),
            ],
        )
        assert [line.split(" ", 1)[1] for line in lines(bar)] == [
            "window",
            "toolbar Standard",
            "button New",
            "button Open",
            "separator Recent",
        ]
