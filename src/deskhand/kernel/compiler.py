"""The ``js`` cell compiler: tree-sitter-javascript parse, scope resolution and rewrite.

A cell becomes one strict async arrow, ``(async (__dh$r, __dh$k) => {...})``, that the worker's
runtime (``js/runtime.js``) calls with its binding registry (``__dh$r``) and cell control
(``__dh$k``). The rewrite follows native-contract.md section 5.3:

* top-level ``let``/``const``/``var``/``function``/``class`` (and ``var`` anywhere outside
  functions) stay native declarations; the cell registers accessor closures for them before
  any user code runs, so old closures and later cells share one live binding;
* every free identifier (bound by no local scope) reads and writes through the registry,
  ``typeof free`` is a safe lookup, and callees and tags keep an undefined ``this``;
* ``var`` and ``function`` bindings get "reached" markers for the failed-cell commit rule;
* every ``await``, and every ``for await`` body and the code after it, resumes in the cell it
  was suspended in (section 5.2, late calls);
* ``import``/``export``/``import()``/``import.meta`` and syntax errors fail before anything runs.

Edits never add newlines, so line numbers in stack traces match the user's code. This module
imports nothing from deskhand: the worker process loads it without the package.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Final

import tree_sitter
import tree_sitter_javascript

RESERVED_PREFIX: Final = "__dh$"
MODULES_UNAVAILABLE: Final = "Module imports and exports are not available in Computer Use JavaScript"

_FUNCTIONS: Final = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "generator_function",
        "arrow_function",
        "method_definition",
    }
)
_DECLARATIONS: Final = frozenset({"lexical_declaration", "variable_declaration"})
#: Node types with no identifier, declaration or scope anywhere below them: the walk skips them.
_INERT: Final = frozenset(
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
_LOOP_SCOPES: Final = frozenset({"for_statement", "for_in_statement"})

#: Where a ``var`` stops hoisting (a class body holds no statements outside these).
_HOIST_TARGETS: Final = _FUNCTIONS | {"class_static_block", "class_body"}
_MODULE_QUERY: Final = "(import_statement) @m (export_statement) @m (import) @m (meta_property) @m"
_VAR_QUERY: Final = "(variable_declaration) @v (for_in_statement) @v"

_language: tree_sitter.Language | None = None
_queries: dict[str, tree_sitter.Query] = {}


class CompileError(Exception):
    """The cell cannot run: a syntax error, a module form, or a reserved identifier."""


@dataclass(frozen=True, slots=True)
class Binding:
    """A persistent binding a cell declares."""

    name: str
    kind: str  # const | let | var | function | class


@dataclass(frozen=True, slots=True)
class CompiledCell:
    source: str
    bindings: tuple[Binding, ...]
    #: Free names the cell assigns without declaring them (const-reassignment warnings).
    assigned: tuple[str, ...]


@dataclass(slots=True)
class _Scope:
    names: set[str] = field(default_factory=set)
    function: bool = False


#: An edit: (start byte, end byte, order, sequence, text). Sorted as a tuple, a unique
#: sequence number keeps insertion order among equal positions and never compares the texts.
_Edit = tuple[int, int, int, int, str]


def _javascript() -> tree_sitter.Language:
    global _language  # noqa: PLW0603 - one Language per process, built on first use
    if _language is None:
        _language = tree_sitter.Language(tree_sitter_javascript.language())
    return _language


def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(_javascript())


_ESCAPE = re.compile(r"\\u(?:([0-9a-fA-F]{4})|\{([0-9a-fA-F]{1,6})\})")


def _text(node: tree_sitter.Node) -> str:
    """A node's source text; in a name, ``\\u005f``-style escapes are decoded (JS reads them so)."""
    raw = node.text
    text = raw.decode("utf-8") if raw is not None else ""
    return _ESCAPE.sub(_unescape, text) if "\\" in text else text


def _unescape(match: re.Match[str]) -> str:
    code = int(match.group(1) or match.group(2), 16)
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else match.group()


def _first_error(node: tree_sitter.Node) -> tree_sitter.Node | None:
    if node.is_error or node.is_missing:
        return node
    for child in node.children:
        if child.has_error or child.is_missing:
            found = _first_error(child)
            if found is not None:
                return found
    return None


def syntax_error_text(source: bytes, node: tree_sitter.Node) -> str:
    """A short SyntaxError text for a tree-sitter error node (line and column are 1-based)."""
    row, col = node.start_point
    snippet = source[node.start_byte : node.start_byte + 20].decode("utf-8", "replace").split("\n")[0]
    what = f"missing {node.type}" if node.is_missing else f"unexpected {snippet!r}" if snippet else "unexpected end"
    return f"SyntaxError: {what} at line {row + 1}, column {col + 1}"


class _Compiler:
    def __init__(self, source: bytes) -> None:
        self.src = source
        self.edits: list[_Edit] = []
        self.scopes: list[_Scope] = []
        self.bindings: dict[str, Binding] = {}
        self.var_markers: list[tuple[str, int]] = []
        self.assigned: dict[str, None] = {}
        self.seq = 0
        self.var_names: dict[int, list[tree_sitter.Node]] = {}

    # -- edits -------------------------------------------------------------------------
    def insert(self, pos: int, text: str, order: int) -> None:
        self.seq += 1
        self.edits.append((pos, pos, order * 100000 + self.seq, self.seq, text))

    def replace(self, node: tree_sitter.Node, text: str) -> None:
        self.seq += 1
        self.edits.append((node.start_byte, node.end_byte, 50 * 100000, self.seq, text))

    def apply(self) -> str:
        out: list[bytes] = []
        pos = 0
        self.edits.sort()
        for start, end, _, _, text in self.edits:
            if start < pos:
                continue  # an edit inside a replaced range; the replacement wins
            out.append(self.src[pos:start])
            out.append(text.encode("utf-8"))
            pos = end
        out.append(self.src[pos:])
        return b"".join(out).decode("utf-8")

    # -- scopes ------------------------------------------------------------------------
    def resolves_locally(self, name: str) -> bool:
        # scopes[0] is the cell's top level: its names are registry bindings, not locals.
        return any(name in scope.names for scope in islice(self.scopes, 1, None))

    def marker(self, name: str) -> int:
        self.var_markers.append((name, len(self.var_markers)))
        return len(self.var_markers) - 1

    def declare(self, name: str, kind: str) -> None:
        if len(self.scopes) == 1:
            if kind == "var" and self.bindings.get(name, Binding(name, "var")).kind in {"function"}:
                return
            self.bindings[name] = Binding(name, kind)
        self.scopes[-1].names.add(name)

    def function_scope(self) -> _Scope:
        for scope in reversed(self.scopes):
            if scope.function:
                return scope
        return self.scopes[0]

    def hoist_vars(self, owner: tree_sitter.Node, scope: _Scope, top: bool) -> None:
        """Declare every ``var`` that hoists to ``owner`` (the root, a function or a static block)."""
        for ident in self.var_names.get(owner.id, ()):
            self._hoist_one(ident, scope, top)

    def _hoist_one(self, ident: tree_sitter.Node, scope: _Scope, top: bool) -> None:
        name = _text(ident)
        scope.names.add(name)
        if top and name not in self.bindings:
            self.bindings[name] = Binding(name, "var")

    def hoist_block(self, node: tree_sitter.Node, scope: _Scope, top: bool) -> None:
        """Declare the lexical names (let/const/class/function) directly in a block."""
        for child in node.named_children:
            kind = None
            names: list[tree_sitter.Node] = []
            if child.type == "lexical_declaration":
                kind = _field_text(child, "kind")
                for decl in child.named_children:
                    name_node = decl.child_by_field_name("name") if decl.type == "variable_declarator" else None
                    if name_node is not None:
                        names.extend(_pattern_names(name_node))
            elif child.type in {"function_declaration", "generator_function_declaration", "class_declaration"}:
                kind = "class" if child.type == "class_declaration" else "function"
                name_node = child.child_by_field_name("name")
                if name_node is not None:
                    names.append(name_node)
            for ident in names:
                name = _text(ident)
                scope.names.add(name)
                if top and kind is not None:
                    self.bindings[name] = Binding(name, kind)

    # -- walk --------------------------------------------------------------------------
    def compile(self, root: tree_sitter.Node) -> None:
        top = _Scope(function=True)
        self.scopes = [top]
        self.var_names = _var_names(root, self.src)
        self.hoist_vars(root, top, True)
        self.hoist_block(root, top, True)
        for child in root.named_children:
            self.top_statement(child)

    def top_statement(self, node: tree_sitter.Node) -> None:
        self.visit(node)
        if node.type in {"function_declaration", "generator_function_declaration"}:
            name = node.child_by_field_name("name")
            if name is not None:
                self.insert(node.end_byte, f";{RESERVED_PREFIX}k.m({self.marker(_text(name))});", 0)
        elif node.type == "expression_statement":
            self.mark_assignment(node)

    def mark_assignment(self, stmt: tree_sitter.Node) -> None:
        expr = stmt.named_children[0] if stmt.named_children else None
        if expr is None or expr.type not in {"assignment_expression", "augmented_assignment_expression"}:
            return
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier":
            return
        binding = self.bindings.get(_text(left))
        if binding is None or binding.kind != "var":
            return
        index = self.marker(binding.name)
        op = _field_text(expr, "operator")
        if op in {"||=", "&&=", "??="}:
            self.insert(right.start_byte, f"({RESERVED_PREFIX}k.m({index}), ", 1)
            self.insert(right.end_byte, ")", 0)
        else:
            self.insert(stmt.end_byte, f";{RESERVED_PREFIX}k.m({index});", 0)

    def visit(self, node: tree_sitter.Node) -> None:
        handler = _HANDLERS.get(node.type)
        if handler is not None:
            handler(self, node)
            return
        for child in node.named_children:
            if child.type not in _INERT:
                self.visit(child)

    def visit_children(self, node: tree_sitter.Node) -> None:
        for child in node.named_children:
            if child.type not in _INERT:
                self.visit(child)

    def reference(self, node: tree_sitter.Node) -> None:
        name = _text(node)
        _check_reserved(name, node)
        if self.resolves_locally(name):
            return
        parent = node.parent
        if parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node:
            self.replace(node, f"{RESERVED_PREFIX}k.c({json.dumps(name)})")
            return
        if _is_assignment_target(node) and name not in self.bindings:
            self.assigned[name] = None
        self.replace(node, f"{RESERVED_PREFIX}r.{name}")

    def shorthand(self, node: tree_sitter.Node) -> None:
        name = _text(node)
        _check_reserved(name, node)
        if self.resolves_locally(name):
            return
        if node.type == "shorthand_property_identifier_pattern" and name not in self.bindings:
            self.assigned[name] = None
        self.replace(node, f"{name}: {RESERVED_PREFIX}r.{name}")

    def await_(self, node: tree_sitter.Node) -> None:
        # The continuation after a native await is a job no Promise hook sees: it restores the
        # cell it was suspended in, so a helper started by an earlier cell cannot dispatch later.
        # A rejection restores it too, before any catch or finally block runs.
        argument = next((child for child in node.named_children if child.type != "comment"), None)
        if argument is None:
            self.visit_children(node)
            return
        self.insert(node.start_byte, f"{RESERVED_PREFIX}k.r(", 1)
        self.insert(argument.start_byte, f"{RESERVED_PREFIX}k.s({RESERVED_PREFIX}k.x(), ", 1)
        self.visit_children(node)
        self.insert(node.end_byte, "))", 0)

    def unary(self, node: tree_sitter.Node) -> None:
        arg = node.child_by_field_name("argument")
        if _field_text(node, "operator") == "typeof" and arg is not None and arg.type == "identifier":
            name = _text(arg)
            _check_reserved(name, arg)
            if not self.resolves_locally(name):
                self.replace(node, f"{RESERVED_PREFIX}k.t({json.dumps(name)})")
                return
        self.visit_children(node)

    # -- bindings ----------------------------------------------------------------------
    def pattern(self, node: tree_sitter.Node) -> None:
        """Visit a binding pattern: names are declarations, defaults and keys are expressions."""
        kind = node.type
        if kind in {"identifier", "shorthand_property_identifier_pattern"}:
            _check_reserved(_text(node), node)
            return
        if kind == "pair_pattern":
            key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
            if key is not None and key.type == "computed_property_name":
                self.visit_children(key)
            if value is not None:
                self.pattern(value)
            return
        if kind in {"assignment_pattern", "object_assignment_pattern"}:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None:
                self.pattern(left)
            if right is not None:
                self.visit(right)
            return
        for child in node.named_children:
            self.pattern(child)

    def declaration(self, node: tree_sitter.Node) -> None:
        is_var = node.type == "variable_declaration"
        kind = "var" if is_var else (_field_text(node, "kind") or "let")
        for decl in node.named_children:
            if decl.type != "variable_declarator":
                continue
            name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
            if name is not None:
                self.pattern(name)
                if not is_var:
                    for ident in _pattern_names(name):
                        self.declare(_text(ident), kind)
            if value is not None:
                self.visit(value)
            if is_var and name is not None and self.function_scope() is self.scopes[0]:
                for ident in _pattern_names(name):
                    self.insert(
                        decl.end_byte, f", {RESERVED_PREFIX}m = {RESERVED_PREFIX}k.m({self.marker(_text(ident))})", 0
                    )

    def function(self, node: tree_sitter.Node) -> None:
        name = node.child_by_field_name("name")
        if node.type in {"function_expression", "generator_function"} and name is not None:
            self.scopes.append(_Scope(names={_text(name)}))
        if name is not None:
            if name.type == "computed_property_name":
                self.visit_children(name)
            else:
                _check_reserved(_text(name), name)
        # Parameters get their own scope: defaults never see the body's var declarations.
        scope = _Scope(function=True)
        if node.type != "arrow_function":
            scope.names.add("arguments")
        self.scopes.append(scope)
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if params is not None:
            for ident in _pattern_names(params):
                scope.names.add(_text(ident))
            self.pattern(params)
        body = node.child_by_field_name("body")
        if body is not None and body.type == "statement_block":
            inner = _Scope(function=True)
            self.scopes.append(inner)
            self.hoist_vars(node, inner, False)
            self.hoist_block(body, inner, False)
            self.visit_children(body)
            self.scopes.pop()
        elif body is not None:
            self.visit(body)
        self.scopes.pop()
        if node.type in {"function_expression", "generator_function"} and name is not None:
            self.scopes.pop()

    def klass(self, node: tree_sitter.Node) -> None:
        name = node.child_by_field_name("name")
        inner = _Scope()
        if name is not None:
            _check_reserved(_text(name), name)
            inner.names.add(_text(name))
        self.scopes.append(inner)
        for child in node.named_children:
            if name is None or child != name:
                self.visit(child)
        self.scopes.pop()

    def static_block(self, node: tree_sitter.Node) -> None:
        scope = _Scope(function=True)
        self.scopes.append(scope)
        body = node.child_by_field_name("body")
        if body is not None:
            self.hoist_vars(node, scope, False)
            self.hoist_block(body, scope, False)
            self.visit_children(body)
        self.scopes.pop()

    def block(self, node: tree_sitter.Node) -> None:
        scope = _Scope()
        self.scopes.append(scope)
        self.hoist_block(node, scope, False)
        self.visit_children(node)
        self.scopes.pop()

    def catch(self, node: tree_sitter.Node) -> None:
        scope = _Scope()
        param = node.child_by_field_name("parameter")
        if param is not None:
            for ident in _pattern_names(param):
                scope.names.add(_text(ident))
        self.scopes.append(scope)
        if param is not None:
            self.pattern(param)
        body = node.child_by_field_name("body")
        if body is not None:
            self.block(body)
        self.scopes.pop()

    def for_loop(self, node: tree_sitter.Node) -> None:
        if node.type == "for_in_statement" and any(child.type == "await" for child in node.children):
            self.for_await(node)
            return
        self.for_loop_scope(node)

    def for_await(self, node: tree_sitter.Node) -> None:
        # Each iteration and the code after the loop resume from native awaits (next(), and
        # return() when the loop is left early) that no Promise hook sees. Like await_, they
        # restore the cell the loop started in: the body on entry, everything after the loop in
        # a finally. The label stays on the loop, so break and continue keep their targets.
        outer = node
        while outer.parent is not None and outer.parent.type == "labeled_statement":
            outer = outer.parent
        cell = f"{RESERVED_PREFIX}c"
        restore = f"{RESERVED_PREFIX}k.e({cell});"
        self.insert(outer.start_byte, f"{{const {cell}={RESERVED_PREFIX}k.x();try{{", 1)
        body = node.child_by_field_name("body")
        block = body is not None and body.type == "statement_block"
        if body is not None and block:
            self.insert(body.start_byte + 1, restore, 1)
        elif body is not None:
            self.insert(body.start_byte, "{" + restore, 1)
        self.for_loop_scope(node)
        if body is not None and not block:
            self.insert(body.end_byte, "}", 0)
        self.insert(outer.end_byte, f"}}finally{{{restore}}}}}", 0)

    def for_loop_scope(self, node: tree_sitter.Node) -> None:
        scope = _Scope()
        self.scopes.append(scope)
        kind = _field_text(node, "kind") if node.type == "for_in_statement" else None
        if node.type == "for_statement":
            init = node.child_by_field_name("initializer")
            if init is not None and init.type == "lexical_declaration":
                self.hoist_block_decl(init, scope)
        left = node.child_by_field_name("left")
        body = node.child_by_field_name("body")
        for child in node.named_children:
            if child == left and kind is not None:
                if kind != "var":
                    for ident in _pattern_names(child):
                        scope.names.add(_text(ident))
                self.pattern(child)
            elif child == body:
                self.loop_body(node, kind, body)
            else:
                self.visit(child)
        self.scopes.pop()

    def hoist_block_decl(self, decl: tree_sitter.Node, scope: _Scope) -> None:
        for d in decl.named_children:
            name = d.child_by_field_name("name") if d.type == "variable_declarator" else None
            if name is not None:
                for ident in _pattern_names(name):
                    scope.names.add(_text(ident))

    def loop_body(self, node: tree_sitter.Node, kind: str | None, body: tree_sitter.Node) -> None:
        left = node.child_by_field_name("left")
        at_top = self.function_scope() is self.scopes[0]
        if kind == "var" and left is not None and at_top:
            marks = "".join(f"{RESERVED_PREFIX}k.m({self.marker(_text(i))});" for i in _pattern_names(left))
            if body.type == "statement_block":
                self.insert(body.start_byte + 1, marks, 1)
            else:
                self.insert(body.start_byte, "{" + marks, 1)
                self.visit(body)
                self.insert(body.end_byte, "}", 0)  # after the body's own closing edits
                return
        self.visit(body)


def _field_text(node: tree_sitter.Node, name: str) -> str | None:
    child = node.child_by_field_name(name)
    return _text(child) if child is not None else None


def _check_reserved(name: str, node: tree_sitter.Node) -> None:
    if name.startswith(RESERVED_PREFIX):
        row = node.start_point[0] + 1
        raise CompileError(f"SyntaxError: identifiers starting with {RESERVED_PREFIX} are reserved (line {row})")


def _pattern_names(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """The identifiers a binding pattern (or formal parameter list) declares."""
    kind = node.type
    if kind in {"identifier", "shorthand_property_identifier_pattern"}:
        yield node
    elif kind == "pair_pattern":
        value = node.child_by_field_name("value")
        if value is not None:
            yield from _pattern_names(value)
    elif kind in {"assignment_pattern", "object_assignment_pattern"}:
        left = node.child_by_field_name("left")
        if left is not None:
            yield from _pattern_names(left)
    elif kind in {"object_pattern", "array_pattern", "rest_pattern", "formal_parameters"}:
        for child in node.named_children:
            yield from _pattern_names(child)


def _is_assignment_target(node: tree_sitter.Node) -> bool:
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


def _reject_modules(root: tree_sitter.Node, source: bytes) -> None:
    if b"import" not in source and b"export" not in source:
        return  # every module form starts with one of these keywords
    for node in _captures(_MODULE_QUERY, root):
        if node.type != "meta_property" or _text(node).startswith("import"):
            raise CompileError(MODULES_UNAVAILABLE)


def _var_names(root: tree_sitter.Node, source: bytes) -> dict[int, list[tree_sitter.Node]]:
    """Every identifier a ``var`` declares, in source order, keyed by the id of the node it
    hoists to: the nearest enclosing function or static block, else ``root``."""
    names: dict[int, list[tree_sitter.Node]] = {}
    if b"var" not in source:
        return names
    for node in _captures(_VAR_QUERY, root):
        if node.type == "for_in_statement":
            left = node.child_by_field_name("left")
            if left is None or _field_text(node, "kind") != "var":
                continue
            idents = list(_pattern_names(left))
        else:
            idents = []
            for decl in node.named_children:
                name = decl.child_by_field_name("name") if decl.type == "variable_declarator" else None
                if name is not None:
                    idents.extend(_pattern_names(name))
        owner = node.parent
        while owner is not None and owner.type not in _HOIST_TARGETS:
            owner = owner.parent
        names.setdefault(root.id if owner is None else owner.id, []).extend(idents)
    return names


_HANDLERS = {
    "identifier": _Compiler.reference,
    "shorthand_property_identifier": _Compiler.shorthand,
    "shorthand_property_identifier_pattern": _Compiler.shorthand,
    "unary_expression": _Compiler.unary,
    "await_expression": _Compiler.await_,
    "lexical_declaration": _Compiler.declaration,
    "variable_declaration": _Compiler.declaration,
    "function_declaration": _Compiler.function,
    "generator_function_declaration": _Compiler.function,
    "function_expression": _Compiler.function,
    "generator_function": _Compiler.function,
    "arrow_function": _Compiler.function,
    "method_definition": _Compiler.function,
    "class_declaration": _Compiler.klass,
    "class": _Compiler.klass,
    "class_static_block": _Compiler.static_block,
    "statement_block": _Compiler.block,
    "catch_clause": _Compiler.catch,
    "for_statement": _Compiler.for_loop,
    "for_in_statement": _Compiler.for_loop,
}


def compile_cell(code: str) -> CompiledCell:
    """Rewrite one cell into the runtime's async arrow.

    Raises:
        CompileError: a syntax error, a module form, or a reserved identifier.
    """
    source = code.encode("utf-8")
    tree = _parser().parse(source)
    root = tree.root_node
    _reject_modules(root, source)
    if root.has_error:
        bad = _first_error(root)
        raise CompileError(syntax_error_text(source, bad if bad is not None else root))
    compiler = _Compiler(source)
    compiler.compile(root)
    body = compiler.apply()
    decls = []
    markers: dict[str, list[int]] = {}
    for name, index in compiler.var_markers:
        markers.setdefault(name, []).append(index)
    for binding in compiler.bindings.values():
        name = binding.name
        setter = "null" if binding.kind == "const" else f"({RESERVED_PREFIX}v)=>{{{name}={RESERVED_PREFIX}v}}"
        decls.append(
            f"[{json.dumps(name)},{json.dumps(binding.kind)},()=>{name},{setter},{json.dumps(markers.get(name, []))}]"
        )
    assigned = [name for name in compiler.assigned if name not in compiler.bindings]
    head = (
        f'(async ({RESERVED_PREFIX}r, {RESERVED_PREFIX}k) => {{"use strict";'
        f"{RESERVED_PREFIX}k.b([{','.join(decls)}],{json.dumps(assigned)});"
    )
    return CompiledCell(head + body + "\n})", tuple(compiler.bindings.values()), tuple(assigned))
