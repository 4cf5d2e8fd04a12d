"""The full state text (native-contract.md sections 3.1 and 3.2), rendered through the Observer."""

from __future__ import annotations

from deskhand.core.axtree import AppTree, Element, Observer, WindowTree, frame_envelope
from deskhand.core.axtree.render import MAX_DEPTH, MAX_NODES
from deskhand.core.geometry import Rect


def app(*roots: Element, title: str = "Docs", focused: Element | None = None, **kw: object) -> AppTree:
    windows = [WindowTree(7 + i, title, root) for i, root in enumerate(roots)]
    return AppTree("org.example.Docs", "Docs", 42, windows, focused=focused, **kw)  # type: ignore[arg-type]


def lines(tree: AppTree, **kw: object) -> list[str]:
    """The tree lines of a fresh full observation, without the App=/Window: head and the tail."""
    text = Observer().observe(tree, app_key="a", identity="p", key_window_id=7, **kw).text  # type: ignore[arg-type]
    body = text.split("\n")[2:]
    return body[: body.index("")] if "" in body else body


def window(*children: Element, **kw: object) -> Element:
    return Element("AXWindow", children=list(children), **kw)  # type: ignore[arg-type]


class TestHead:
    def test_app_and_window_lines(self) -> None:
        text = Observer().observe(app(window()), app_key="a", identity="p", key_window_id=7).text
        assert text.split("\n")[:3] == ["App=org.example.Docs (pid 42)", 'Window: "Docs", App: Docs.', "g1:0 window"]

    def test_window_line_uses_app_name_for_empty_or_app_dash_titles(self) -> None:
        for title in ("", "Docs – Untitled"):
            text = Observer().observe(app(window(), title=title), app_key="a", identity="p", key_window_id=7).text
            assert text.split("\n")[1] == 'Window: "Docs", App: Docs.'

    def test_window_line_uses_the_key_window(self) -> None:
        tree = AppTree("x", "X", 1, [WindowTree(1, "First", window()), WindowTree(2, "Second", window())])
        text = Observer().observe(tree, app_key="a", identity="p", key_window_id=2).text
        assert text.split("\n")[1] == 'Window: "Second", App: X.'


class TestLines:
    def test_spec_examples(self) -> None:
        tree = app(window(Element("AXButton", title="Save"), Element("AXTextField", title="Name")))
        assert lines(tree) == ["g1:0 window", "\tg1:1 button Save", "\tg1:2 text field Name"]

    def test_standard_window_with_raise(self) -> None:
        tree = app(window(subrole="AXStandardWindow", title="Docs", actions=("AXRaise",)))
        assert lines(tree) == ["g1:0 standard window Docs, Secondary Actions: Raise"]

    def test_bare_value_scroll_bar(self) -> None:
        bar = Element("AXScrollBar", value=0.137, settable="float")
        assert lines(app(window(bar)))[1] == "\tg1:1 scroll bar (settable, float) 0.137"

    def test_value_field_after_text_field_without_title(self) -> None:
        field = Element("AXTextField", value="old")
        assert lines(app(window(field)))[1] == "\tg1:1 text field Value: old"

    def test_static_text_without_title_is_bare(self) -> None:
        assert lines(app(window(Element("AXStaticText", value="Hello"))))[1] == "\tg1:1 text Hello"

    def test_text_area_value_is_bare_even_with_a_title(self) -> None:
        area = Element("AXTextArea", title="Body", value="hi", settable="string")
        assert lines(app(window(area)))[1] == "\tg1:1 text area (settable, string) Body hi"

    def test_field_order_and_joining(self) -> None:
        element = Element(
            "AXTextField",
            title="Name",
            description="Full name",
            help="Your name",
            value="Ann",
            identifier="name-field",
            placeholder="Type here",
            actions=("AXPress", "AXShowMenu", "AXRaise"),
        )
        assert lines(app(window(element)))[1] == (
            "\tg1:1 text field Name, Description: Full name, Help: Your name, Value: Ann, "
            "ID: name-field, Placeholder: Type here, Secondary Actions: Raise"
        )

    def test_first_field_joins_with_a_space_after_traits_only(self) -> None:
        row = Element("AXRow", selected=True, expanded=True, value="Favorites")
        assert lines(app(window(Element("AXOutline", children=[row]))))[2] == (
            "\t\tg1:2 row (selected, expanded) Value: Favorites"
        )

    def test_description_equal_to_title_help_equal_to_label_and_ns_ids_are_hidden(self) -> None:
        element = Element("AXButton", title="OK", description="OK", help="OK", identifier="_NS:12")
        assert lines(app(window(element)))[1] == "\tg1:1 button OK"

    def test_button_label_becomes_title(self) -> None:
        assert lines(app(window(Element("AXButton", description="Close"))))[1] == "\tg1:1 button Close"

    def test_url_field_only_on_web_areas(self) -> None:
        web = Element("AXWebArea", title="Page", url="https://example.com/")
        button = Element("AXButton", title="Go", url="https://example.com/")
        assert lines(app(window(web, button)))[1:] == [
            "\tg1:1 HTML content Page, URL: https://example.com/",
            "\tg1:2 button Go",
        ]

    def test_checkbox_boolean_value(self) -> None:
        box = Element("AXCheckBox", title="Bold", value=False)
        assert lines(app(window(box)))[1] == "\tg1:1 check box Bold, Value: off"

    def test_disabled_trait(self) -> None:
        assert lines(app(window(Element("AXButton", title="Cut", enabled=False))))[1] == "\tg1:1 button (disabled) Cut"

    def test_radio_group_with_label_and_no_title_has_no_role_text(self) -> None:
        group = Element("AXRadioGroup", description="Alignment")
        assert lines(app(window(group)))[1] == "\tg1:1 Description: Alignment"

    def test_menu_bar_item_has_no_role_text_and_no_children(self) -> None:
        item = Element("AXMenuBarItem", title="File", children=[Element("AXMenu", title="File menu")])
        bar = Element("AXMenuBar", children=[Element("AXMenuBarItem", title="Apple"), item])
        tree = app(window(), menu_bar=bar)
        assert lines(tree) == ["g1:0 window", "g1:1 menu bar", "\tg1:2 File"]

    def test_role_description_wins_for_role_text(self) -> None:
        ruler = Element("AXRuler", role_description="Ruler", title="Ruler")
        assert lines(app(window(ruler)))[1] == "\tg1:1 ruler Ruler"

    def test_sanitized_title_in_a_line(self) -> None:
        element = Element("AXButton", title="two\nlines" + "x" * 200)
        line = lines(app(window(element)))[1]
        assert line == "\tg1:1 button " + ("two\\nlines" + "x" * 200)[:160] + "..."


class TestRowsAndLinks:
    def test_row_summary_when_fewer_rows_are_visible(self) -> None:
        rows = [Element("AXRow", selected=True, title=f"r{i}") for i in range(3)]
        outline = Element("AXOutline", title="Files", row_count=50, children=rows)
        assert lines(app(window(outline)))[1] == "\tg1:1 outline Files (showing 0-2 of 50 items)"

    def test_visible_rows_are_capped_at_20(self) -> None:
        rows = [Element("AXRow", selected=True, title=f"r{i}") for i in range(25)]
        outline = Element("AXList", title="Items", children=rows)
        assert lines(app(window(outline)))[1] == "\tg1:1 list Items (showing 0-19 of 25 items)"

    def test_visible_rows_are_the_ones_inside_the_list_frame(self) -> None:
        rows = [Element("AXRow", selected=True, title=f"r{i}", frame=Rect(0, 20 * i, 100, 20)) for i in range(5)]
        outline = Element("AXList", title="Items", frame=Rect(0, 0, 100, 50), children=rows)
        assert lines(app(window(outline)))[1] == "\tg1:1 list Items (showing 0-2 of 5 items)"

    def test_no_summary_when_all_rows_are_visible(self) -> None:
        outline = Element("AXOutline", title="Files", children=[Element("AXRow", selected=True, title="a")])
        assert lines(app(window(outline)))[1] == "\tg1:1 outline Files"

    def test_non_selected_row_inlines_cell_texts(self) -> None:
        cells = [
            Element("AXCell", children=[Element("AXStaticText", value="report.pdf")]),
            Element("AXCell", children=[Element("AXStaticText", value="12 KB")]),
            Element("AXCell", children=[Element("AXTextField", value="PDF")]),
        ]
        row = Element("AXRow", children=cells)
        assert lines(app(window(Element("AXTable", children=[row]))))[1:] == [
            "\tg1:1 table",
            "\t\tg1:2 row report.pdf",
            "\t\t\tg1:3 text 12 KB",
            "\t\t\tg1:4 text PDF",
        ]

    def test_selected_row_renders_its_children(self) -> None:
        row = Element("AXRow", selected=True, children=[Element("AXStaticText", value="a")])
        assert lines(app(window(row)))[1:] == ["\tg1:1 row (selected) a", "\t\tg1:2 text a"]

    def test_link_with_url_renders_markdown_and_suppresses_children(self) -> None:
        link = Element(
            "AXLink",
            title="Docs [v2]",
            url="https://example.com/docs",
            children=[Element("AXStaticText", value="Docs")],
        )
        assert lines(app(window(link)))[1:] == ["\tg1:1 link [Docs \\[v2\\]](https://example.com/docs)"]

    def test_link_without_url_keeps_children(self) -> None:
        link = Element("AXLink", title="Home", children=[Element("AXStaticText", value="Home")])
        assert lines(app(window(link)))[1:] == ["\tg1:1 link Home", "\t\tg1:2 text Home"]


class TestElision:
    def test_featureless_groups_are_skipped_and_children_stay_at_depth(self) -> None:
        inner = Element("AXGroup", children=[Element("AXButton", title="A"), Element("AXButton", title="B")])
        outer = Element("AXGroup", children=[inner])
        assert lines(app(window(outer))) == ["g1:0 window", "\tg1:1 button A", "\tg1:2 button B"]

    def test_groups_with_a_label_are_kept(self) -> None:
        group = Element("AXGroup", description="Toolbar", children=[Element("AXButton", title="A")])
        assert lines(app(window(group))) == ["g1:0 window", "\tg1:1 container Toolbar", "\t\tg1:2 button A"]

    def test_single_child_wrapper_with_settable_string_is_skipped(self) -> None:
        group = Element("AXGroup", settable="string", children=[Element("AXButton", title="A")])
        assert lines(app(window(group))) == ["g1:0 window", "\tg1:1 button A"]

    def test_multi_child_groups_inside_a_web_area_are_kept(self) -> None:
        group = Element("AXGroup", children=[Element("AXButton", title="A"), Element("AXButton", title="B")])
        web = Element("AXWebArea", title="Page", children=[group])
        assert lines(app(window(web)))[2] == "\t\tg1:2 container"

    def test_elided_wrappers_extend_the_locator_path(self) -> None:
        observer = Observer()
        button = Element("AXButton", title="A", locator="a")
        tree = app(window(Element("AXGroup", locator="g1", children=[button]), locator="w"))
        observer.observe(tree, app_key="a", identity="p", key_window_id=7)
        # The same button under another wrapper is another element: it gets a new id.
        tree2 = app(window(Element("AXGroup", locator="g2", children=[button]), locator="w"))
        result = observer.observe(tree2, app_key="a", identity="p", key_window_id=7)
        assert "Removed element IDs: 1" in result.text
        assert "+\tg1:2 button A" in result.text


class TestCaps:
    def test_depth_cap_20_flags_truncation(self) -> None:
        leaf = Element("AXButton", title="deep")
        for i in range(MAX_DEPTH + 5):
            leaf = Element("AXSplitGroup", title=f"s{i}", children=[leaf])
        result = Observer().observe(app(leaf), app_key="a", identity="p", key_window_id=7)
        assert result.truncated
        body = [line for line in result.text.split("\n")[2:] if line]
        assert max(line.count("\t") for line in body) == MAX_DEPTH - 1

    def test_node_cap_1500_flags_truncation(self) -> None:
        buttons = [Element("AXButton", title=str(i)) for i in range(MAX_NODES + 10)]
        result = Observer().observe(app(window(*buttons)), app_key="a", identity="p", key_window_id=7)
        assert result.truncated
        assert len(result.ids) == MAX_NODES

    def test_backend_truncation_is_kept(self) -> None:
        result = Observer().observe(app(window(), truncated=True), app_key="a", identity="p", key_window_id=7)
        assert result.truncated

    def test_small_trees_are_not_truncated(self) -> None:
        assert not Observer().observe(app(window()), app_key="a", identity="p", key_window_id=7).truncated


class TestTail:
    def test_focused_element_line_without_secondary_actions(self) -> None:
        field = Element("AXTextField", title="Name", value="x", actions=("AXRaise",), focused=True)
        text = Observer().observe(app(window(field)), app_key="a", identity="p", key_window_id=7).text
        assert text.endswith(
            "\tg1:1 text field Name, Value: x, Secondary Actions: Raise\n\n"
            "The focused UI element is g1:1 text field Name, Value: x."
        )

    def test_appttree_focused_is_used(self) -> None:
        field = Element("AXTextField", title="Name")
        text = Observer().observe(app(window(field), focused=field), app_key="a", identity="p", key_window_id=7).text
        assert text.endswith("\n\nThe focused UI element is g1:1 text field Name.")

    def test_selected_text_replaces_the_focus_line(self) -> None:
        field = Element("AXTextArea", value="hello world", focused=True, selected_text="world")
        text = Observer().observe(app(window(field)), app_key="a", identity="p", key_window_id=7).text
        assert text.endswith("\tg1:1 text area hello world\n\nSelected text: [world]")

    def test_no_tail_without_focus(self) -> None:
        text = Observer().observe(app(window()), app_key="a", identity="p", key_window_id=7).text
        assert text.endswith("g1:0 window")


class TestEnvelope:
    def test_envelope_without_instructions(self) -> None:
        assert frame_envelope("g1:0 window\n\n") == (
            "Computer Use state (CUA App Version: 1)\n<app_state>\ng1:0 window\n</app_state>"
        )

    def test_envelope_with_instructions(self) -> None:
        assert frame_envelope("g1:0 window", "Use g9:9 carefully.") == (
            "Computer Use state (CUA App Version: 1)\n"
            "<app_specific_instructions>\nUse g9:9 carefully.\n</app_specific_instructions>\n"
            "<app_state>\ng1:0 window\n</app_state>"
        )
