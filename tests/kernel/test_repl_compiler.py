"""native-contract.md 7.1 replCompiler: binding collection, module forms, syntax errors, const writes.

The last test compiles a generated cell at the 256 KiB limit and checks what it means by
running it in the real worker.
"""

from __future__ import annotations

import pytest
from _kernel_support import js, session_run, texts

from deskhand.kernel.compiler import MODULES_UNAVAILABLE, Binding, CompileError, compile_cell
from deskhand.kernel.session import MAX_CODE_BYTES


def test_collects_hoisted_vars_then_lexical_bindings_in_source_order() -> None:
    cell = compile_cell(
        "const app = 1\nlet {a, b: [c, ...d], e = 2} = o\nvar v\nfunction f() { var inner; let block }\n"
        "class K {}\nfor (var i of []) { var nested; let scoped; function blockFn() {} }\n"
        "if (x) { var late } else { let hidden }\nclass S { static { var staticVar } }"
    )
    assert cell.bindings == (
        Binding("v", "var"),
        Binding("i", "var"),
        Binding("nested", "var"),
        Binding("late", "var"),
        Binding("app", "const"),
        Binding("a", "let"),
        Binding("c", "let"),
        Binding("d", "let"),
        Binding("e", "let"),
        Binding("f", "function"),
        Binding("K", "class"),
        Binding("S", "class"),
    )


def test_a_function_keeps_its_kind_over_a_var_of_the_same_name() -> None:
    assert compile_cell("var g = 1; function g() {}").bindings == (Binding("g", "function"),)


@pytest.mark.parametrize(
    "code",
    [
        "import x from 'y'",
        "export const a = 1",
        "let meta = import.meta",
        "async function load() { return await import('fs') }",
        "if (broken) { import('x') }",
    ],
)
def test_module_forms_are_rejected(code: str) -> None:
    with pytest.raises(CompileError, match=MODULES_UNAVAILABLE):
        compile_cell(code)


def test_new_target_is_not_a_module_form() -> None:
    assert compile_cell("function F() { return new.target }").bindings == (Binding("F", "function"),)


@pytest.mark.parametrize("code", ["let = ;", "function (", "let x = {", "1 +"])
def test_syntax_errors_fail_before_running(code: str) -> None:
    with pytest.raises(CompileError, match=r"^SyntaxError"):
        compile_cell(code)


def test_reserved_prefix_is_rejected() -> None:
    with pytest.raises(CompileError, match="reserved"):
        compile_cell("let __dh$r = 1")


def test_const_writes_are_found_except_where_shadowed() -> None:
    cell = compile_cell(
        "fixed = 2; ({other} = o); [third] = a; counter++\n"
        "function local(fixed) { fixed = 3 }\n{ let other = 1; other = 2 }\nlet mine = 1; mine = 2"
    )
    assert cell.assigned == ("fixed", "other", "third", "counter")


def _large_cell() -> tuple[str, int, int]:
    """A cell just under the code limit: (code, chunks, expected total)."""

    def chunk(i: int) -> str:
        return (
            f"var v{i} = {i}; let l{i} = v{i} * 2; const c{i} = [l{i}, 's{i}']\n"
            f"function f{i}(x) {{ var local = x + l{i}; for (var k of [1]) local += k;"
            f" return typeof g{i + 1} === 'function' ? local : -local }}\n"
            f"class K{i} {{ m() {{ return c{i}[0] + f{i}(0) }} }}\n"
            f"for (var w{i} in {{a: 1}}) total += {i}\n"
            f"if (total > -1) {{ var b{i} = `t${{l{i}}}`; let hidden{i} = 1 }}\n"
            f"function g{i}() {{ return f{i} }}\n"
            f"total += f{i}(1) + new K{i}().m()\n"
        )

    parts = ["let total = 0\n"]
    size = len(parts[0])
    count = 0
    while size + len(chunk(count).encode()) <= MAX_CODE_BYTES:
        parts.append(chunk(count))
        size += len(parts[-1].encode())
        count += 1
    # Every chunk adds i + f(1) + K.m(); the last one sees no later g and flips its signs.
    expected = sum(7 * i + 3 for i in range(count - 1)) + (-(count - 1) - 3)
    return "".join(parts), count, expected


def test_a_cell_at_the_size_limit_compiles_and_runs() -> None:
    code, count, expected = _large_cell()
    assert MAX_CODE_BYTES - 400 < len(code.encode()) <= MAX_CODE_BYTES and count > 500
    compiled = compile_cell(code)
    assert compiled.source.count("\n") == code.count("\n") + 1  # edits never add lines
    assert len(compiled.bindings) == 8 * count + 1

    first, second = session_run(
        None,
        code,
        "nodeRepl.write([total, v0, l3, c2[1], typeof hidden0, b4, w7, g9()(1), new K10().m(),"
        f" f{count - 1}(1), typeof k])",
        timeout_s=30,
    )
    assert not first.is_error, first.text
    assert texts(second) == [js([expected, 0, 6, "s2", "undefined", "t8", "a", 20, 41, -(2 * count), "undefined"])]


@pytest.mark.parametrize(
    "code",
    [
        "for await (const x of g)\n  f(x)",
        "outer: inner: for await (var [a, b] of g) {\n  if (a) continue outer\n}",
        "if (c) for await (x of g) ;\nelse y()",
    ],
)
def test_for_await_keeps_its_lines_and_labels(code: str) -> None:
    source = compile_cell(code).source
    assert source.count("\n") == code.count("\n") + 1
    assert "outer: inner: for await" in source or "outer" not in code
