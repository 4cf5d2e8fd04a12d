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

Edits never add newlines, so line numbers in stack traces match the user's code. The syntax
helpers are in ``jssyntax``, the edits and scopes in ``jsscope``. These modules import nothing
from deskhand but each other: the worker process loads them without the package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import tree_sitter

from deskhand.kernel.jsscope import Binding, Rewrite, Scope
from deskhand.kernel.jssyntax import (
    INERT,
    MODULES_UNAVAILABLE,
    RESERVED_PREFIX,
    CompileError,
    check_reserved,
    field_text,
    first_error,
    is_assignment_target,
    node_text,
    parser,
    pattern_names,
    reject_modules,
    syntax_error_text,
    var_names,
)

__all__ = ("MODULES_UNAVAILABLE", "RESERVED_PREFIX", "Binding", "CompileError", "CompiledCell", "compile_cell")


@dataclass(frozen=True, slots=True)
class CompiledCell:
    source: str
    bindings: tuple[Binding, ...]
    #: Free names the cell assigns without declaring them (const-reassignment warnings).
    assigned: tuple[str, ...]


class _Compiler(Rewrite):
    """The visitor: walks the cell's tree and decides each edit."""

    # -- walk --------------------------------------------------------------------------
    def compile(self, root: tree_sitter.Node) -> None:
        top = Scope(function=True)
        self.scopes = [top]
        self.var_names = var_names(root, self.src)
        self.hoist_vars(root, top, True)
        self.hoist_block(root, top, True)
        for child in root.named_children:
            self.top_statement(child)

    def top_statement(self, node: tree_sitter.Node) -> None:
        self.visit(node)
        if node.type in {"function_declaration", "generator_function_declaration"}:
            name = node.child_by_field_name("name")
            if name is not None:
                self.insert(node.end_byte, f";{RESERVED_PREFIX}k.m({self.marker(node_text(name))});", 0)
        elif node.type == "expression_statement":
            self.mark_assignment(node)

    def visit(self, node: tree_sitter.Node) -> None:
        handler = _HANDLERS.get(node.type)
        if handler is not None:
            handler(self, node)
            return
        for child in node.named_children:
            if child.type not in INERT:
                self.visit(child)

    def visit_children(self, node: tree_sitter.Node) -> None:
        for child in node.named_children:
            if child.type not in INERT:
                self.visit(child)

    def reference(self, node: tree_sitter.Node) -> None:
        name = node_text(node)
        check_reserved(name, node)
        if self.resolves_locally(name):
            return
        parent = node.parent
        if parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node:
            self.replace(node, f"{RESERVED_PREFIX}k.c({json.dumps(name)})")
            return
        if is_assignment_target(node) and name not in self.bindings:
            self.assigned[name] = None
        self.replace(node, f"{RESERVED_PREFIX}r.{name}")

    def shorthand(self, node: tree_sitter.Node) -> None:
        name = node_text(node)
        check_reserved(name, node)
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
        if field_text(node, "operator") == "typeof" and arg is not None and arg.type == "identifier":
            name = node_text(arg)
            check_reserved(name, arg)
            if not self.resolves_locally(name):
                self.replace(node, f"{RESERVED_PREFIX}k.t({json.dumps(name)})")
                return
        self.visit_children(node)

    # -- bindings ----------------------------------------------------------------------
    def pattern(self, node: tree_sitter.Node) -> None:
        """Visit a binding pattern: names are declarations, defaults and keys are expressions."""
        kind = node.type
        if kind in {"identifier", "shorthand_property_identifier_pattern"}:
            check_reserved(node_text(node), node)
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
        kind = "var" if is_var else (field_text(node, "kind") or "let")
        for decl in node.named_children:
            if decl.type != "variable_declarator":
                continue
            name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
            if name is not None:
                self.pattern(name)
                if not is_var:
                    for ident in pattern_names(name):
                        self.declare(node_text(ident), kind)
            if value is not None:
                self.visit(value)
            if is_var and name is not None and self.function_scope() is self.scopes[0]:
                for ident in pattern_names(name):
                    self.insert(
                        decl.end_byte,
                        f", {RESERVED_PREFIX}m = {RESERVED_PREFIX}k.m({self.marker(node_text(ident))})",
                        0,
                    )

    def function(self, node: tree_sitter.Node) -> None:
        name = node.child_by_field_name("name")
        if node.type in {"function_expression", "generator_function"} and name is not None:
            self.scopes.append(Scope(names={node_text(name)}))
        if name is not None:
            if name.type == "computed_property_name":
                self.visit_children(name)
            else:
                check_reserved(node_text(name), name)
        # Parameters get their own scope: defaults never see the body's var declarations.
        scope = Scope(function=True)
        if node.type != "arrow_function":
            scope.names.add("arguments")
        self.scopes.append(scope)
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if params is not None:
            for ident in pattern_names(params):
                scope.names.add(node_text(ident))
            self.pattern(params)
        body = node.child_by_field_name("body")
        if body is not None and body.type == "statement_block":
            inner = Scope(function=True)
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
        inner = Scope()
        if name is not None:
            check_reserved(node_text(name), name)
            inner.names.add(node_text(name))
        self.scopes.append(inner)
        for child in node.named_children:
            if name is None or child != name:
                self.visit(child)
        self.scopes.pop()

    def static_block(self, node: tree_sitter.Node) -> None:
        scope = Scope(function=True)
        self.scopes.append(scope)
        body = node.child_by_field_name("body")
        if body is not None:
            self.hoist_vars(node, scope, False)
            self.hoist_block(body, scope, False)
            self.visit_children(body)
        self.scopes.pop()

    def block(self, node: tree_sitter.Node) -> None:
        scope = Scope()
        self.scopes.append(scope)
        self.hoist_block(node, scope, False)
        self.visit_children(node)
        self.scopes.pop()

    def catch(self, node: tree_sitter.Node) -> None:
        scope = Scope()
        param = node.child_by_field_name("parameter")
        if param is not None:
            for ident in pattern_names(param):
                scope.names.add(node_text(ident))
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
        scope = Scope()
        self.scopes.append(scope)
        kind = field_text(node, "kind") if node.type == "for_in_statement" else None
        if node.type == "for_statement":
            init = node.child_by_field_name("initializer")
            if init is not None and init.type == "lexical_declaration":
                self.hoist_block_decl(init, scope)
        left = node.child_by_field_name("left")
        body = node.child_by_field_name("body")
        for child in node.named_children:
            if child == left and kind is not None:
                if kind != "var":
                    for ident in pattern_names(child):
                        scope.names.add(node_text(ident))
                self.pattern(child)
            elif child == body:
                self.loop_body(node, kind, body)
            else:
                self.visit(child)
        self.scopes.pop()

    def hoist_block_decl(self, decl: tree_sitter.Node, scope: Scope) -> None:
        for d in decl.named_children:
            name = d.child_by_field_name("name") if d.type == "variable_declarator" else None
            if name is not None:
                for ident in pattern_names(name):
                    scope.names.add(node_text(ident))

    def loop_body(self, node: tree_sitter.Node, kind: str | None, body: tree_sitter.Node) -> None:
        left = node.child_by_field_name("left")
        at_top = self.function_scope() is self.scopes[0]
        if kind == "var" and left is not None and at_top:
            marks = "".join(f"{RESERVED_PREFIX}k.m({self.marker(node_text(i))});" for i in pattern_names(left))
            if body.type == "statement_block":
                self.insert(body.start_byte + 1, marks, 1)
            else:
                self.insert(body.start_byte, "{" + marks, 1)
                self.visit(body)
                self.insert(body.end_byte, "}", 0)  # after the body's own closing edits
                return
        self.visit(body)


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
    tree = parser().parse(source)
    root = tree.root_node
    reject_modules(root, source)
    if root.has_error:
        bad = first_error(root)
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
