# ruff: noqa: E501 - the tables quote whole JS cells
"""native-contract.md 7.1 replWorker: shared bindings, the failed-cell commit rule, the bridge."""

from __future__ import annotations

import asyncio

from _kernel_support import FakeCaller, js, run, session_run, texts

from deskhand.host.result import TextBlock, ToolResult
from deskhand.kernel import KernelSession


def test_closures_and_later_cells_share_one_binding() -> None:
    results = session_run(
        None,
        "let count=0; function step(){count+=1}; function current(){return count}",
        "step(); nodeRepl.write({count,current:current()})",
        "count=10; step(); nodeRepl.write({count,current:current()})",
    )
    assert [t for r in results for t in texts(r)] == ['{"count":1,"current":1}', '{"count":11,"current":11}']
    assert not any(r.is_error for r in results)


def test_helpers_resolve_future_bindings_without_replacing_globals() -> None:
    results = session_run(
        None,
        "function target(){return app}\nfunction futureMath(){return Math}\nfunction missing(){return typeof absent}\n"
        "const originalMath = globalThis.Math\nnodeRepl.write(missing())",
        "let app = {name:'Fixture'}\nlet Math = {name:'local'}\nlet absent = 3\n"
        "nodeRepl.write([target().name, futureMath().name, missing(), globalThis.Math===originalMath])",
    )
    assert [t for r in results for t in texts(r)] == ["undefined", '["Fixture","local","number",true]']


def test_shorthand_destructuring_shadowing_and_receivers() -> None:
    results = session_run(
        None,
        """
      let count=1
      function read(){return count}
      function receiver(){return this}
      function tagged(){return this}
      function defaults(value=count){var count=7; return [value,count,arguments.length]}
      class View { #value=3; current(){return count+this.#value} self(){return View} }
    """,
        """
      ({count}= {count:4})
      let output={count}
      let [a,b=count] = [1]
      { let count=8; output.block=count }
      for(let count=0;count<2;count++){output.loop=count}
      function local(count){return (()=>count)()}
      function hoisted(){count=5;var count;return count}
      const named=function count(){return count.name}
      try {throw 6} catch(count){output.caught=count}
      let view = new View()
      nodeRepl.write([output,a,b,read(),local(9),hoisted(),named(),view.current(),view.self()===View,
        receiver()===undefined,tagged`x`===undefined,defaults()])
    """,
    )
    assert texts(results[1]) == [
        '[{"count":4,"block":8,"loop":1,"caught":6},1,4,4,9,5,"count",7,true,true,true,[4,7,0]]'
    ]


def test_failed_declarations_keep_partial_initialization() -> None:
    results = session_run(
        None,
        'let app="old"; function selected(){return app}; const fixed=1; function constant(){return fixed}',
        "let app=selected()",
        'nodeRepl.write(selected()); const [first,second=(()=>{throw Error("stop")})()] = [7]',
        "fixed=2; nodeRepl.write([first,typeof second,constant()]); const same=1; same=2",
    )
    assert results[1].is_error and "initializ" in results[1].text
    assert texts(results[2])[0] == "old"
    assert texts(results[3])[:2] == [
        "Warning: fixed was declared with const; use let for reassignable variables.",
        '[7,"undefined",2]',
    ]
    assert "constant" in texts(results[3])[-1]


def test_const_reassignment_warns_and_failed_cell_keeps_initialized() -> None:
    results = session_run(
        None,
        "let count = 1; const fixed = 5",
        'count = 3; const reached = 7; throw new Error("stop"); const unreached = 8',
        "nodeRepl.write([count, reached, typeof unreached]); fixed = 4",
        "nodeRepl.write(fixed); const local = 1; local = 2",
    )
    assert texts(results[1]) == ["stop"] and results[1].is_error
    assert texts(results[2]) == [
        "Warning: fixed was declared with const; use let for reassignable variables.",
        '[3,7,"undefined"]',
    ]
    assert not results[2].is_error
    assert texts(results[3])[0] == "4"
    assert "Assignment to constant variable." in texts(results[3])[-1]


def test_top_level_await_identity_and_const_redeclaration() -> None:
    results = session_run(
        None,
        "const app = await Promise.resolve({clicks: 0})\nlet count = 2\nfunction label() { return app.clicks }\n"
        "class View { constructor() { this.app = app } }",
        "app.clicks++; count += 3\nnodeRepl.write([count, label(), new View().app === app])",
        "const app = {clicks: 9}; nodeRepl.write(app.clicks)",
    )
    assert [t for r in results for t in texts(r)] == [
        "[5,1,true]",
        "Warning: app was declared with const; use let for reassignable variables.",
        "9",
    ]


ENDED = "This JavaScript cell has ended; await every Computer Use operation."
ABSENT = "(() => { try { %s; return 'BOUND' } catch { return 'ABSENT' } })()"


def test_failed_cells_discard_unreached_var_and_function() -> None:
    results = session_run(
        None,
        "var before = 1\nvar declared\nfunction beforeFn() { return 2 }\nthrow new Error('stop')\n"
        "var after = 3\nfunction afterFn() { return 4 }",
        f"nodeRepl.write([before, beforeFn(), declared, typeof afterFn, {ABSENT % 'after'}])",
    )
    assert texts(results[1]) == ['[1,2,null,"undefined","ABSENT"]']


def test_failed_loop_declarations_commit_only_when_reached() -> None:
    results = session_run(
        None,
        """
      for (var index = 0; index < 2; index++) {}
      for (var { value, nested: [item] } of [{ value: 3, nested: [4] }]) {}
      for (var key in {a: 1}) {}
      for (var single of [6]) if (single === 6) continue
      for (var empty of []) {}
      for (var emptyKey in {}) {}
      throw new Error('stop')
      for (var unseen = 0; unseen < 2; unseen++) {}
    """,
        f"nodeRepl.write([index, value, item, key, single, {ABSENT % 'empty'}, {ABSENT % 'emptyKey'},"
        f" {ABSENT % 'unseen'}])",
    )
    assert texts(results[1]) == ['[2,3,4,"a",6,"ABSENT","ABSENT","ABSENT"]']


def test_failed_replacement_keeps_old_values_and_success_keeps_hoisting() -> None:
    results = session_run(
        None,
        "let app = {value: 7}; var previous = 8; function existing() { return 9 }",
        "let app = await Promise.reject(new Error('replacement failed'))\nvar previous = 99\n"
        "function existing() { return 99 }",
        "nodeRepl.write([app.value, previous, existing()])\nif (false) { var skipped = 1 }\n"
        "for (var empty of []) {}\nfunction local() { var neverGlobal = 1; return neverGlobal }",
        "nodeRepl.write([skipped, empty, typeof local, typeof neverGlobal])",
    )
    assert texts(results[1]) == ["replacement failed"]
    assert texts(results[2]) == ["[7,8,9]"]
    assert texts(results[3]) == ['[null,null,"function","undefined"]']


def test_executed_writes_before_future_var_commit_but_short_circuits_do_not() -> None:
    results = session_run(
        None,
        "future = 9\norValue ||= 3\nnullishValue ??= 4\nandValue &&= 5\nthrow new Error('stop')\n"
        "var future, orValue, nullishValue, andValue",
        f"nodeRepl.write([future, orValue, nullishValue, {ABSENT % 'andValue'}])",
    )
    assert texts(results[1]) == ['[9,3,4,"ABSENT"]']


def test_app_helper_follows_rebinding() -> None:
    caller = FakeCaller()
    results = session_run(
        caller,
        'let app = await cua.getApp("First"); async function build(){await app.click([1,2])}',
        'app = await cua.getApp("Second"); await build()',
        'let app = await cua.getApp("Third"); await build()',
    )
    assert not any(r.is_error for r in results)
    assert [args["app"] for name, args in caller.calls if name == "click"] == ["Second", "Third"]


def test_bridge_results_and_transport_errors_are_serialized() -> None:
    def script(name: str, args: dict[str, object]) -> ToolResult:
        if name == "click":
            raise ConnectionError("fixture failure")
        return ToolResult((TextBlock("ok"),), structured={"app": "value-4"})

    results = session_run(
        FakeCaller(script),
        "const result = await __cuInvoke('get_app_state', {app:'Fixture'})\n"
        "nodeRepl.write([result.app, Object.getPrototypeOf(result) === Object.prototype])\n"
        "try { await __cuInvoke('click', {x:1,y:2}) } catch (error) { nodeRepl.write([error instanceof Error, error.message]) }",
    )
    assert texts(results[0]) == ['["value-4",true]', '[true,"fixture failure"]']


def test_detached_calls_after_the_cell_ends_are_refused() -> None:
    caller = FakeCaller()
    results = session_run(
        caller,
        "void __cuInvoke('click', {x:1}).then(() => __cuInvoke('click', {x:2})).catch(error => nodeRepl.write(error.message))",
        'nodeRepl.write("next")',
    )
    assert caller.names == ["click"]
    assert texts(results[1]) == ["next"]


def test_unawaited_failures_fail_the_cell() -> None:
    def script(name: str, args: dict[str, object]) -> ToolResult:
        if args.get("fail") == "transport":
            raise ConnectionError("expected")
        if args.get("fail"):
            return ToolResult((TextBlock("native command rejected"),), is_error=True)
        return ToolResult((TextBlock("ok"),))

    results = session_run(
        FakeCaller(script),
        'void __cuInvoke("click", {fail: true})',
        "void __cuInvoke('click', {fail: true})\nawait __cuInvoke('get_app_state', {})",
        "const recovery = __cuInvoke('click', {fail: 'transport'}).catch(() => 'handled')\nnodeRepl.write(await recovery)",
    )
    assert (
        results[0].is_error and "An unawaited Computer Use operation failed: native command rejected" in results[0].text
    )
    assert results[1].is_error and "native command rejected" in results[1].text
    assert not results[2].is_error and texts(results[2]) == ["handled"]


def test_old_continuations_cannot_invoke_in_later_cells() -> None:
    caller = FakeCaller()
    results = session_run(
        caller,
        "let release\nconst gate = new Promise(resolve => { release = resolve })\n"
        "gate.then(() => __cuInvoke('click', {stale: true})).catch(() => {})",
        'release(); await Promise.resolve(); nodeRepl.write("current")',
    )
    assert caller.calls == []
    assert texts(results[1]) == ["current"]


def test_native_await_continuations_of_an_ended_cell_cannot_invoke() -> None:
    caller = FakeCaller()
    results = session_run(
        caller,
        "let release; const gate = new Promise(resolve => { release = resolve }); const log = []\n"
        "async function stale() { await gate; try { await __cuInvoke('click', {stale: 1}) } catch (e) { log.push(e.message) }\n"
        "  try { await cua.computer.click({app: 'Fixture', x: 1, y: 1}) } catch (e) { log.push(e.message) } }\n"
        "async function twice() { await gate; await __cuInvoke('click', {n: 1}); await __cuInvoke('click', {n: 2}) }\n"
        "const running = stale()",
        "release(); await running; await twice(); nodeRepl.write(log)",
    )
    assert not any(r.is_error for r in results), [r.text for r in results]
    assert caller.calls == [("click", {"n": 1}), ("click", {"n": 2})]
    assert texts(results[1]) == [js([ENDED, ENDED])]


def test_for_await_loops_of_an_ended_cell_cannot_invoke() -> None:
    # The generator is started in cell 1 and keeps yielding while cell 2 runs; the loop body,
    # and the code after a loop left by break or by a throw, still belong to cell 1.
    caller = FakeCaller()
    results = session_run(
        caller,
        "let release; const gate = new Promise(resolve => { release = resolve }); const log = []\n"
        "async function* ticks(n) { await gate; for (let i = 0; i < n; i++) yield i }\n"
        "const click = (x) => cua.computer.click({app: 'Fixture', x, y: 1}).catch(e => log.push(e.message))\n"
        "async function body() { for await (const i of ticks(2)) await click(i) }\n"
        "async function inline() { for await (const i of ticks(1)) log.push(await __cuInvoke('click', {i}).catch(e => e.message)) }\n"
        "async function broken() { out: for await (const i of ticks(3)) { if (i === 1) break out } await click(10) }\n"
        "async function thrown() { try { for await (const i of ticks(3)) throw i } catch (e) { await click(20) } }\n"
        "const running = Promise.all([body(), inline(), broken(), thrown()])",
        "release(); await running; nodeRepl.write(log)",
    )
    assert not any(r.is_error for r in results), [r.text for r in results]
    assert caller.calls == []
    assert texts(results[1]) == [js([ENDED] * 5)]


def test_for_await_in_the_current_cell_dispatches() -> None:
    caller = FakeCaller()
    results = session_run(
        caller,
        "async function* ticks(n) { for (let i = 0; i < n; i++) { await Promise.resolve(); yield i } }\n"
        "const seen = []\n"
        "for await (const i of ticks(2)) await cua.computer.click({app: 'Fixture', x: i, y: 0})\n"
        "outer: for (const row of [1, 2]) { for await (const i of ticks(3)) { if (i === 1) continue outer; seen.push([row, i]) } }\n"
        "for await (var v of [Promise.resolve(5), 6]) { if (v === 6) break }\n"
        "try { for await (const i of ticks(3)) throw new Error('stop ' + i) } catch (e) { seen.push(e.message) }\n"
        "await __cuInvoke('click', {after: v})\n"
        "async function later() { for await (const i of ticks(1)) await __cuInvoke('click', {later: i}) }",
        "await later(); nodeRepl.write([seen, v])",
    )
    assert not any(r.is_error for r in results), [r.text for r in results]
    assert [args.get("x", args) for _, args in caller.calls] == [0, 1, {"after": 6}, {"later": 0}]
    assert texts(results[1]) == [js([[[1, 0], [2, 0], "stop 0"], 6])]


def test_concurrent_cells_are_rejected_without_queueing() -> None:
    caller = FakeCaller()
    caller.hold = {"click"}

    async def go() -> tuple[str, str]:
        caller.gate, caller.entered = asyncio.Event(), asyncio.Event()
        session = KernelSession(caller)
        try:
            first = asyncio.ensure_future(session.run('await __cuInvoke("click", {})', timeout_s=10))
            await caller.entered.wait()
            second = await session.run('nodeRepl.write("overlap")', queue=False)
            caller.gate.set()
            return second.text, (await first).text
        finally:
            await session.close()

    second, first = run(go())
    assert second == "A Computer Use JavaScript cell is already running."
    assert first == ""


def test_top_level_arguments_and_node_objects_are_absent() -> None:
    results = session_run(
        None,
        "nodeRepl.write([typeof process, typeof require, typeof Buffer, typeof setTimeout, typeof arguments])\n"
        "for (const candidate of [() => Function('return 1')(), () => __cuInvoke.constructor('return process')(),"
        " () => nodeRepl.write.constructor('return process')(), () => (async()=>{}).constructor('x')(),"
        " () => eval('1')]) {\n"
        "  try { candidate(); nodeRepl.write('escaped') } catch { nodeRepl.write('blocked') }\n}",
        'await import("node:fs")',
    )
    assert texts(results[0]) == [js(["undefined"] * 5)] + ["blocked"] * 5
    assert "not available" in results[1].text


def test_emit_shapes_and_already_dispatched_calls() -> None:
    results = session_run(None, "nodeRepl.write('plain'); nodeRepl.write([1]); nodeRepl.write(undefined)")
    assert texts(results[0]) == ["plain", "[1]", "undefined"]
