# ruff: noqa: E501 - the tables quote whole JS cells
"""native-contract.md 7.1 replApi: the cua facade's native args, normalization, indices, errors."""

from __future__ import annotations

from _kernel_support import STATE, FakeCaller, session_run, texts

from deskhand.core.errors import NativeError
from deskhand.host.result import ImageBlock, TextBlock, ToolResult

JPEG = bytes([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3])


def test_get_app_binds_resolved_path_and_emits_guidance_once() -> None:
    caller = FakeCaller(lambda n, a: ToolResult((TextBlock(STATE),), structured={"app": "/usr/bin/fixture"}))
    results = session_run(
        caller,
        'let app = await cua.getApp("Fixture"); let again = await cua.getApp("Fixture")',
        "await app.click([1,2])",
    )
    assert caller.calls[0] == ("get_app_state", {"app": "Fixture", "disableDiff": True, "textOnly": True})
    assert caller.calls[2] == ("click", {"app": "/usr/bin/fixture", "x": 1, "y": 2})
    first, second = texts(results[0])
    assert first.startswith("Native App API\n") and first.endswith("\n\n" + STATE)
    assert second == STATE
    assert 'cua.computer (target:"linux")' in first


def test_actions_map_to_exact_native_args() -> None:
    caller = FakeCaller()
    (result,) = session_run(
        caller,
        'let app = await cua.getApp("A"); await app.getAXState({disableDiffing: true});'
        "await app.click(1, {mouseButton: ' R ', clickCount: 2}); await app.click('g1:1', {mouseButton: 2});"
        "await app.drag([1,2],[3,4]); await app.pressKey('ctrl+a'); await app.scroll([5,6], ' U ', 2);"
        "await app.paste('hi'); await app.typeText('t'); await app.selectText('g1:1', 'x', {prefix: 'p'});"
        "await app.setValue(1, 'v'); await app.performSecondaryAction(1, 'Raise');"
        "nodeRepl.write([Object.keys(cua), Object.keys(cua.computer), cua.computer.target])",
    )
    assert not result.is_error, result.text
    assert caller.calls[1:] == [
        ("get_app_state", {"app": "A", "disableDiff": True, "textOnly": True}),
        ("click", {"app": "A", "element_index": "g1:1", "mouse_button": "right", "click_count": 2}),
        ("click", {"app": "A", "element_index": "g1:1", "mouse_button": "middle"}),
        ("drag", {"app": "A", "from_x": 1, "from_y": 2, "to_x": 3, "to_y": 4}),
        ("press_key", {"app": "A", "key": "ctrl+a"}),
        ("scroll", {"app": "A", "x": 5, "y": 6, "direction": "up", "pages": 2}),
        ("paste", {"app": "A", "text": "hi", "format": "text"}),
        ("type_text", {"app": "A", "text": "t"}),
        ("select_text", {"app": "A", "element_index": "g1:1", "text": "x", "prefix": "p"}),
        ("set_value", {"app": "A", "element_index": "g1:1", "value": "v"}),
        ("perform_secondary_action", {"app": "A", "element_index": "g1:1", "action": "Raise"}),
    ]
    keys = texts(result)[-1]
    assert keys == (
        '[["getApp","listApps","getState","computer","listWindows","getWindow","observeWindow","verifyState",'
        '"actAndVerify"],["target","list_apps","list_windows","get_app_state","click","drag","paste",'
        '"perform_secondary_action","press_key","scroll","select_text","set_value","type_text"],"linux"]'
    )


def test_each_observation_asks_for_what_it_returns() -> None:
    caller = FakeCaller()
    (result,) = session_run(
        caller,
        'let app = await cua.getApp("A"); await app.getAXState({emit: false});'
        "await app.getScreenshot({emit: false}).catch(() => 0); await app.getAXStateAndScreenshot({emit: false});"
        'await cua.computer.get_app_state({app: "A"});',
    )
    assert not result.is_error, result.text
    assert caller.calls == [
        ("get_app_state", {"app": "A", "disableDiff": True, "textOnly": True}),  # getApp's first state
        ("get_app_state", {"app": "A", "textOnly": True}),
        ("get_app_state", {"app": "A", "imageOnly": True}),
        ("get_app_state", {"app": "A"}),
        ("get_app_state", {"app": "A"}),
    ]


def test_invalid_arguments_never_reach_the_bridge() -> None:
    cases = {
        "await app.click([1, NaN])": "coordinate must include finite x and y coordinates",
        "await app.drag([1], [2, 3])": "from must include finite x and y coordinates",
        "await app.click([1,1], {mouseButton: 3})": "mouseButton number must be 0, 1, or 2",
        "await app.click([1,1], {mouseButton: 'x'})": "mouseButton must be left, right, middle, l, r, m, 0, 1, or 2",
        "await app.scroll([1,1], 'sideways')": "direction must be up, down, left, or right",
        "await app.scroll([1,1], 'up', 0)": "pages must be a finite number > 0",
        "await app.scroll([1,1], 'up', Infinity)": "pages must be a finite number > 0",
        "await app.pressKey('  ')": "key is required",
        "await app.click(7)": "Element 7 has no current observed handle. Call getAXState({disableDiffing:true}) "
        "before using an integer index.",
        "await app.click('7')": "Expected an observed integer element index or an opaque gN:id handle",
        "await cua.getApp('')": "getApp requires an explicit app name, bundle ID, or path",
        "await cua.computer.press_key({app: ''})": "app is required",
        "await nodeRepl.emitImage('/etc/passwd')": "emitImage requires Uint8Array bytes or {bytes, mimeType}",
    }
    caller = FakeCaller()
    results = session_run(caller, 'let app = await cua.getApp("A")', *cases)
    assert len(caller.calls) == 1
    for result, expected in zip(results[1:], cases.values(), strict=True):
        assert result.is_error and texts(result)[-1] == expected


def test_native_errors_are_rebuilt() -> None:
    def script(name: str, args: dict[str, object]) -> ToolResult:
        if name == "click":
            error = NativeError("process_gone", "The app quit.").to_js()
            return ToolResult((TextBlock("The app quit."),), is_error=True, native_error=error)
        if name == "drag":
            error = NativeError("stale_process", "stale").to_js()
            return ToolResult((TextBlock("stale"),), is_error=True, native_error=error)
        return ToolResult((TextBlock(STATE),))

    caller = FakeCaller(script)
    (result,) = session_run(
        caller,
        'let app = await cua.getApp("A");'
        "try { await app.click([1,1]) } catch (e) { nodeRepl.write([e.name, e.code, e.errorName, e.request, e.requestType, e.nativeCode, e.message]) }"
        "try { await app.drag([1,1],[2,2]) } catch (e) { nodeRepl.write([e.name, e.code, e.nativeCode]) }"
        "await app.click([1,1]); await app.click([2,2])",
    )
    out = texts(result)
    assert (
        out[1]
        == '["SkyComputerUseError",-10007,"runningApplicationNotFound",null,"jsonRPC","process_gone","The app quit."]'
    )
    assert out[2] == '["Error",null,"stale_process"]'
    assert result.is_error and out[-1] == "The app quit."
    assert [n for n, _ in caller.calls].count("click") == 2  # the batch stopped at the first failure


def test_indices_follow_diffs_and_screenshots_clear_them() -> None:
    full = "<app_state>\nApp=A\n\tg3:1 button One\n\tg3:2 button Two\n\tg3:7 button Seven\n</app_state>"
    diff = (
        '<app_state>\nThe following is a diff from the previous accessibility tree for Window: "A" with ~ and +\n'
        "Removed element IDs: 1-2\n+\tg3:9 button Nine\n</app_state>"
    )
    replies = iter([full, diff])

    def script(name: str, args: dict[str, object]) -> ToolResult:
        if name == "get_app_state" and args.get("disableDiff") is None and "image" in str(args.get("app")):
            return ToolResult((TextBlock(full), ImageBlock(JPEG, "image/jpeg")))
        if name == "get_app_state":
            return ToolResult((TextBlock(next(replies, full)),))
        return ToolResult(())

    caller = FakeCaller(script)
    results = session_run(
        caller,
        'let app = await cua.getApp("A"); await app.getAXState({emit:false}); await app.click(7); await app.click(9)',
        "await app.click(1)",
        'let shot = await cua.getApp("image"); const bytes = await shot.getScreenshot({emit:false}); '
        "nodeRepl.write(bytes.length); await nodeRepl.emitImage(bytes); await shot.click(1)",
    )
    assert [a.get("element_index") for n, a in caller.calls if n == "click"][:2] == ["g3:7", "g3:9"]
    assert results[1].is_error and "Element 1 has no current observed handle" in results[1].text
    assert texts(results[2])[1] == str(len(JPEG))
    images = [b for b in results[2].content if isinstance(b, ImageBlock)]
    assert images == [ImageBlock(JPEG, "image/jpeg")]
    assert "Element 1 has no current observed handle" in texts(results[2])[-1]


def test_list_apps_parses_text_and_keeps_structured_inventory() -> None:
    inventory = [{"id": "org.x.Mousepad", "displayName": "Mousepad", "isRunning": True, "useCount": 3}]

    def script(name: str, args: dict[str, object]) -> ToolResult:
        return ToolResult((TextBlock("Text Editor — a — org.x.Editor\nNo separator"),))

    (parsed,) = session_run(FakeCaller(script), "await cua.listApps()")
    assert texts(parsed) == ['[{"id":"org.x.Editor","displayName":"Text Editor — a","isRunning":true}]']
    structured = FakeCaller(lambda n, a: ToolResult((TextBlock("x"),), structured={"apps": inventory}))
    (state,) = session_run(structured, "const s = await cua.getState(); nodeRepl.write(await cua.computer.list_apps())")
    first, second = texts(state)
    assert first.startswith("Native App API") and first.endswith(
        '{"apps":'
        + str(inventory).replace("'", '"').replace(": ", ":").replace(", ", ",").replace("True", "true")
        + ',"browsers":[]}'
    )
    assert second.startswith('[{"id":"org.x.Mousepad"')
