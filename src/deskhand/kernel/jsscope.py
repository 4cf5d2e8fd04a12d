"""The ``js`` cell compiler's rewrite state: the edits to the cell's source, and the scopes and
persistent bindings the edits are decided by (declarations and ``var`` hoisting).

Like the compiler, this module imports nothing from deskhand but its kernel siblings: the worker
process loads it without the package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice

import tree_sitter

from deskhand.kernel.jssyntax import RESERVED_PREFIX, field_text, node_text, pattern_names


@dataclass(frozen=True, slots=True)
class Binding:
    """A persistent binding a cell declares."""

    name: str
    kind: str  # const | let | var | function | class


@dataclass(slots=True)
class Scope:
    names: set[str] = field(default_factory=set)
    function: bool = False


#: An edit: (start byte, end byte, order, sequence, text). Sorted as a tuple, a unique
#: sequence number keeps insertion order among equal positions and never compares the texts.
Edit = tuple[int, int, int, int, str]


class Rewrite:
    """The edits of one cell's rewrite and the scopes they are decided in (the visitor is
    ``compiler._Compiler``)."""

    def __init__(self, source: bytes) -> None:
        self.src = source
        self.edits: list[Edit] = []
        self.scopes: list[Scope] = []
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

    def function_scope(self) -> Scope:
        for scope in reversed(self.scopes):
            if scope.function:
                return scope
        return self.scopes[0]

    def hoist_vars(self, owner: tree_sitter.Node, scope: Scope, top: bool) -> None:
        """Declare every ``var`` that hoists to ``owner`` (the root, a function or a static block)."""
        for ident in self.var_names.get(owner.id, ()):
            self._hoist_one(ident, scope, top)

    def _hoist_one(self, ident: tree_sitter.Node, scope: Scope, top: bool) -> None:
        name = node_text(ident)
        scope.names.add(name)
        if top and name not in self.bindings:
            self.bindings[name] = Binding(name, "var")

    def hoist_block(self, node: tree_sitter.Node, scope: Scope, top: bool) -> None:
        """Declare the lexical names (let/const/class/function) directly in a block."""
        for child in node.named_children:
            kind = None
            names: list[tree_sitter.Node] = []
            if child.type == "lexical_declaration":
                kind = field_text(child, "kind")
                for decl in child.named_children:
                    name_node = decl.child_by_field_name("name") if decl.type == "variable_declarator" else None
                    if name_node is not None:
                        names.extend(pattern_names(name_node))
            elif child.type in {"function_declaration", "generator_function_declaration", "class_declaration"}:
                kind = "class" if child.type == "class_declaration" else "function"
                name_node = child.child_by_field_name("name")
                if name_node is not None:
                    names.append(name_node)
            for ident in names:
                name = node_text(ident)
                scope.names.add(name)
                if top and kind is not None:
                    self.bindings[name] = Binding(name, kind)

    def mark_assignment(self, stmt: tree_sitter.Node) -> None:
        expr = stmt.named_children[0] if stmt.named_children else None
        if expr is None or expr.type not in {"assignment_expression", "augmented_assignment_expression"}:
            return
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier":
            return
        binding = self.bindings.get(node_text(left))
        if binding is None or binding.kind != "var":
            return
        index = self.marker(binding.name)
        op = field_text(expr, "operator")
        if op in {"||=", "&&=", "??="}:
            self.insert(right.start_byte, f"({RESERVED_PREFIX}k.m({index}), ", 1)
            self.insert(right.end_byte, ")", 0)
        else:
            self.insert(stmt.end_byte, f";{RESERVED_PREFIX}k.m({index});", 0)
