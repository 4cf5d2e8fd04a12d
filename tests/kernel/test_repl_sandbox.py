# ruff: noqa: E501 - the tables quote whole JS cells
"""native-contract.md 7.1 replSandbox on Linux: private directory, scrubbed env, no host reach."""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from pathlib import Path

import pytest
from _kernel_support import FakeCaller, run, session_run, texts

from deskhand.kernel import KernelSession
from deskhand.kernel.process import WORKER_SCRIPT
from proc_support import children


def test_worker_env_is_private_and_directory_is_removed() -> None:
    os.environ["DESKHAND_TEST_SECRET"] = "s3cret"

    async def go() -> tuple[dict[str, str], str, Path]:
        session = KernelSession(FakeCaller())
        try:
            await session.run("let x = 1")
            pid = session.worker_pid
            assert pid is not None
            raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            env = dict(item.decode().split("=", 1) for item in raw if item)
            limits = Path(f"/proc/{pid}/limits").read_text()
            directory = Path(env["HOME"])
            assert directory.is_dir()
            return env, limits, directory
        finally:
            await session.close()
            del os.environ["DESKHAND_TEST_SECRET"]

    env, limits, directory = run(go())
    assert set(env) == {"HOME", "TMPDIR", "TMP", "TEMP", "PATH", "LANG"}
    assert env["TMPDIR"] == env["TMP"] == env["TEMP"] == env["HOME"]
    assert "s3cret" not in "".join(env.values())
    assert not directory.exists()
    file_size = next(line for line in limits.splitlines() if line.startswith("Max file size"))
    assert file_size.split()[3] == "0"
    assert next(line for line in limits.splitlines() if line.startswith("Max processes")).split()[2] == "0"


def test_only_ecmascript_and_facade_globals_exist() -> None:
    (result,) = session_run(None, "nodeRepl.write(Object.getOwnPropertyNames(globalThis).sort())")
    names = set(eval(texts(result)[0].replace("true", "True")))
    extra = names - {
        *[
            "Object",
            "Function",
            "Error",
            "EvalError",
            "RangeError",
            "ReferenceError",
            "SyntaxError",
            "TypeError",
            "URIError",
        ],
        *[
            "InternalError",
            "AggregateError",
            "SuppressedError",
            "Iterator",
            "Array",
            "parseInt",
            "parseFloat",
            "isNaN",
            "isFinite",
        ],
        *["queueMicrotask", "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape"],
        *[
            "Infinity",
            "NaN",
            "undefined",
            "eval",
            "Number",
            "Boolean",
            "String",
            "Math",
            "Reflect",
            "Symbol",
            "DisposableStack",
            "globalThis",
        ],
        *[
            "BigInt",
            "Date",
            "RegExp",
            "JSON",
            "Proxy",
            "Map",
            "Set",
            "WeakMap",
            "WeakSet",
            "ArrayBuffer",
            "SharedArrayBuffer",
        ],
        *["Uint8ClampedArray", "Int8Array", "Uint8Array", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array"],
        *[
            "BigInt64Array",
            "BigUint64Array",
            "Float16Array",
            "Float32Array",
            "Float64Array",
            "DataView",
            "Atomics",
            "Promise",
        ],
        *["AsyncDisposableStack", "WeakRef", "FinalizationRegistry", "DOMException", "btoa", "atob", "performance"],
    }
    assert extra == {"__cuInvoke", "__cuEmit", "cua", "nodeRepl"}


def test_filesystem_network_process_and_code_generation_are_unreachable() -> None:
    probes = {
        "require": "require('fs')",
        "process": "process.env",
        "fetch": "fetch('http://127.0.0.1')",
        "std": "std.loadFile('/etc/passwd')",
        "os": "os.open('/etc/passwd')",
        "Function": "Function('return globalThis')()",
        "eval": "eval('1+1')",
        "ctor": "(function(){}).constructor('return 1')()",
        "gen": "(function*(){}).constructor('yield 1')().next()",
        "WebSocket": "new WebSocket('ws://127.0.0.1')",
        "XMLHttpRequest": "new XMLHttpRequest()",
        "setTimeout": "setTimeout(() => {}, 1)",
        "bridge": "__dh$r",
        "import": "import('/etc/passwd')",
        "module": "import fs from 'fs'",
    }
    codes = [
        f"try {{ {code}; nodeRepl.write('{name}:escaped') }} catch (e) {{ nodeRepl.write('{name}:blocked') }}"
        for name, code in probes.items()
    ]
    results = session_run(None, *codes)
    for (name, _), result in zip(probes.items(), results, strict=True):
        assert result.is_error or texts(result) == [f"{name}:blocked"], (name, result)


def test_bridge_globals_cannot_be_replaced() -> None:
    (result,) = session_run(
        None,
        "try { __cuInvoke = () => 1 } catch (e) { nodeRepl.write(e instanceof TypeError) }; cua.x = 1; nodeRepl.write(typeof cua.x)",
    )
    assert texts(result)[0] == "true"
    assert result.is_error and "not extensible" in result.text


def test_a_fresh_worker_per_session_after_reset() -> None:
    async def go() -> tuple[int | None, int | None]:
        session = KernelSession(FakeCaller())
        try:
            await session.run("1")
            first = session.worker_pid
            await session.reset()
            await session.run("1")
            return first, session.worker_pid
        finally:
            await session.close()

    first, second = run(go())
    assert first is not None and second is not None and first != second
    assert not Path(f"/proc/{first}").exists()


def test_killed_workers_are_reaped_once_by_asyncio(caplog: pytest.LogCaptureFixture) -> None:
    # Only asyncio's child watcher may reap a worker: a second waitpid (Popen.poll inside
    # Process.kill) races it and the watcher logs "Unknown child process pid".
    async def go() -> list[int]:
        session = KernelSession(FakeCaller())
        pids = []
        try:
            for _ in range(20):
                await session.run("1")
                pid = session.worker_pid
                assert pid is not None
                pids.append(pid)
                await session.reset()
        finally:
            await session.close()
        return pids

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        pids = run(go())
    assert len(set(pids)) == 20
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


def _home(pid: int) -> Path:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return Path(dict(item.decode().split("=", 1) for item in raw if item)["HOME"])


def test_the_spare_worker_after_reset_is_private_and_has_no_bindings() -> None:
    async def go() -> tuple[int, Path, int | None, Path, str, list[str]]:
        session = KernelSession(FakeCaller())
        try:
            await session.run("let x = 1; const app = await cua.getApp('Fixture')")
            first = session.worker_pid
            assert first is not None and session.spare_pid != first  # a spare is kept ready meanwhile
            first_home = _home(first)
            await session.reset()
            spare = session.spare_pid
            assert spare is not None and spare != first
            result = await session.run("nodeRepl.write([typeof x, typeof app])")
            assert session.worker_pid == spare and session.spare_pid != spare  # and the next one starts
            limits = Path(f"/proc/{spare}/limits").read_text()
            return first, first_home, spare, _home(spare), limits, texts(result)
        finally:
            await session.close()

    first, first_home, spare, spare_home, limits, written = run(go())
    assert written == ['["undefined","undefined"]']
    assert spare_home != first_home and not first_home.exists() and not spare_home.exists()
    assert not Path(f"/proc/{first}").exists() and not Path(f"/proc/{spare}").exists()
    assert next(line for line in limits.splitlines() if line.startswith("Max file size")).split()[3] == "0"
    assert next(line for line in limits.splitlines() if line.startswith("Max processes")).split()[2] == "0"


def test_close_ends_the_spare_worker_and_removes_its_directory() -> None:
    async def go() -> tuple[int, Path, bool]:
        session = KernelSession(FakeCaller())
        await session.run("1")
        await session.reset()
        spare = session.spare_pid
        assert spare is not None
        directory = _home(spare)
        existed = directory.is_dir()
        await session.close()
        assert session.spare_pid is None and session.worker_pid is None
        return spare, directory, existed

    spare, directory, existed = run(go())
    assert existed
    assert not Path(f"/proc/{spare}").exists()
    assert not directory.exists()


def test_close_right_after_a_discard_leaves_no_worker_and_no_directory() -> None:
    caller = FakeCaller()
    caller.hold = {"click"}
    temp = Path(tempfile.gettempdir())

    async def go() -> tuple[set[int], set[Path]]:
        caller.gate, caller.entered = asyncio.Event(), asyncio.Event()
        before = set(temp.glob("deskhand-js-*"))
        session = KernelSession(FakeCaller())
        held = KernelSession(caller)
        try:
            await session.run("1")
            await held.run("1")
            # one session closes while its spare is still starting, the other in the middle of a cell
            await asyncio.gather(session.reset(), session.close())
            running = asyncio.ensure_future(held.run("await __cuInvoke('click', {})"))
            await caller.entered.wait()
            closing = asyncio.ensure_future(held.close())
            caller.gate.set()
            await closing
            assert (await running).is_error
        finally:
            await session.close()
            await held.close()
        return set(children(os.getpid(), str(WORKER_SCRIPT).encode())), set(temp.glob("deskhand-js-*")) - before

    workers, directories = run(go())
    assert workers == set()
    assert directories == set()
