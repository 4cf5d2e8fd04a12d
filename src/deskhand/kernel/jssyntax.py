"""The JavaScript syntax the ``js`` cell compiler reads: tree-sitter-javascript's language and
parser, node types, names and patterns, module forms and ``var`` hoisting targets.

Like the compiler, this module imports nothing from deskhand: the worker process loads it
without the package.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

import tree_sitter
import tree_sitter_javascript

RESERVED_PREFIX: Final = "__dh$"
MODULES_UNAVAILABLE: Final = "Module imports and exports are not available in Computer Use JavaScript"

FUNCTIONS: Final = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "generator_function",
        "arrow_function",
        "method_definition",
    }
)
DECLARATIONS: Final = frozenset({"lexical_declaration", "variable_declaration"})
#: Node types with no identifier, declaration or scope anywhere below them: the walk skips them.
INERT: Final = frozenset(
    {
        "string",
        "string_fragment",
        "escape_sequence",
        "number",
        "property_identifier",
        "private_property_identifier",
        "statement_identifier",
        "this",
        "super",
        "null",
        "true",
        "false",
        "undefined",
        "comment",
        "regex",
        "empty_statement",
        "break_statement",
        "continue_statement",
        "debugger_statement",
        "hash_bang_line",
    }
)
LOOP_SCOPES: Final = frozenset({"for_statement", "for_in_statement"})

#: Where a ``var`` stops hoisting (a class body holds no statements outside these).
_HOIST_TARGETS: Final = FUNCTIONS | {"class_static_block", "class_body"}
_MODULE_QUERY: Final = "(import_statement) @m (export_statement) @m (import) @m (meta_property) @m"
_VAR_QUERY: Final = "(variable_declaration) @v (for_in_statement) @v"

_language: tree_sitter.Language | None = None
_queries: dict[str, tree_sitter.Query] = {}


class CompileError(Exception):
    """The cell cannot run: a syntax error, a module form, or a reserved identifier."""


def _javascript() -> tree_sitter.Language:
    global _language  # noqa: PLW0603 - one Language per process, built on first use
    if _language is None:
        _language = tree_sitter.Language(tree_sitter_javascript.language())
    return _language


def parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(_javascript())


_ESCAPE = re.compile(r"\\u(?:([0-9a-fA-F]{4})|\{([0-9a-fA-F]{1,6})\})")


def node_text(node: tree_sitter.Node) -> str:
    """A node's source text; in a name, ``\\u005f``-style escapes are decoded (JS reads them so)."""
    raw = node.text
    text = raw.decode("utf-8") if raw is not None else ""
    return _ESCAPE.sub(_unescape, text) if "\\" in text else text


def _unescape(match: re.Match[str]) -> str:
    code = int(match.group(1) or match.group(2), 16)
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else match.group()


def first_error(node: tree_sitter.Node) -> tree_sitter.Node | None:
    if node.is_error or node.is_missing:
        return node
    for child in node.children:
        if child.has_error or child.is_missing:
            found = first_error(child)
            if found is not None:
                return found
    return None


def syntax_error_text(source: bytes, node: tree_sitter.Node) -> str:
    """A short SyntaxError text for a tree-sitter error node (line and column are 1-based)."""
    row, col = node.start_point
    snippet = source[node.start_byte : node.start_byte + 20].decode("utf-8", "replace").split("\n")[0]
    what = f"missing {node.type}" if node.is_missing else f"unexpected {snippet!r}" if snippet else "unexpected end"
    return f"SyntaxError: {what} at line {row + 1}, column {col + 1}"


def field_text(node: tree_sitter.Node, name: str) -> str | None:
    child = node.child_by_field_name(name)
    return node_text(child) if child is not None else None


def check_reserved(name: str, node: tree_sitter.Node) -> None:
    if name.startswith(RESERVED_PREFIX):
        row = node.start_point[0] + 1
        raise CompileError(f"SyntaxError: identifiers starting with {RESERVED_PREFIX} are reserved (line {row})")


def pattern_names(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """The identifiers a binding pattern (or formal parameter list) declares."""
    kind = node.type
    if kind in {"identifier", "shorthand_property_identifier_pattern"}:
        yield node
    elif kind == "pair_pattern":
        value = node.child_by_field_name("value")
        if value is not None:
            yield from pattern_names(value)
    elif kind in {"assignment_pattern", "object_assignment_pattern"}:
        left = node.child_by_field_name("left")
        if left is not None:
            yield from pattern_names(left)
    elif kind in {"object_pattern", "array_pattern", "rest_pattern", "formal_parameters"}:
        for child in node.named_children:
            yield from pattern_names(child)


def is_assignment_target(node: tree_sitter.Node) -> bool:
    """Whether an identifier is written: an assignment's left side, an update, a loop target."""
    child, parent = node, node.parent
    while parent is not None and parent.type in {
        "array_pattern",
        "object_pattern",
        "pair_pattern",
        "rest_pattern",
        "assignment_pattern",
        "object_assignment_pattern",
        "parenthesized_expression",
    }:
        if parent.type in {"assignment_pattern", "object_assignment_pattern"} and (
            parent.child_by_field_name("left") != child
        ):
            return False
        if parent.type == "pair_pattern" and parent.child_by_field_name("value") != child:
            return False
        child, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type in {"assignment_expression", "augmented_assignment_expression", "for_in_statement"}:
        return parent.child_by_field_name("left") == child
    return parent.type == "update_expression"


def _captures(query: str, root: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The nodes a one-capture query matches below ``root``, in source order (the walk runs in C)."""
    compiled = _queries.get(query)
    if compiled is None:
        compiled = _queries[query] = tree_sitter.Query(_javascript(), query)
    found = tree_sitter.QueryCursor(compiled).captures(root)
    return sorted((node for nodes in found.values() for node in nodes), key=lambda node: node.start_byte)


def reject_modules(root: tree_sitter.Node, source: bytes) -> None:
    if b"import" not in source and b"export" not in source:
        return  # every module form starts with one of these keywords
    for node in _captures(_MODULE_QUERY, root):
        if node.type != "meta_property" or node_text(node).startswith("import"):
            raise CompileError(MODULES_UNAVAILABLE)


def var_names(root: tree_sitter.Node, source: bytes) -> dict[int, list[tree_sitter.Node]]:
    """Every identifier a ``var`` declares, in source order, keyed by the id of the node it
    hoists to: the nearest enclosing function or static block, else ``root``."""
    names: dict[int, list[tree_sitter.Node]] = {}
    if b"var" not in source:
        return names
    for node in _captures(_VAR_QUERY, root):
        if node.type == "for_in_statement":
            left = node.child_by_field_name("left")
            if left is None or field_text(node, "kind") != "var":
                continue
            idents = list(pattern_names(left))
        else:
            idents = []
            for decl in node.named_children:
                name = decl.child_by_field_name("name") if decl.type == "variable_declarator" else None
                if name is not None:
                    idents.extend(pattern_names(name))
        owner = node.parent
        while owner is not None and owner.type not in _HOIST_TARGETS:
            owner = owner.parent
        names.setdefault(root.id if owner is None else owner.id, []).extend(idents)
    return names
