"""Security review attacks on the js kernel (issue 15 items 5, 6 and 8): each must fail to do harm.

Every case drives a real worker process. What is asserted is what an attacker would want to
change: the text the model reads, the calls the host receives (``FakeCaller.calls``), whether
the session survives, and the worker's confinement as the kernel reports it in ``/proc``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _kernel_support import FakeCaller, cells, run, session_run, texts

from deskhand.kernel import KernelSession
from deskhand.kernel.confine import status_fields
from deskhand.kernel.process import confinement_summary, worker_env
from deskhand.kernel.session import OUT_OF_MEMORY

LINUX = sys.platform.startswith("linux")
KERNEL_DIR = Path(__file__).resolve().parents[2] / "src" / "deskhand" / "kernel"


# -- item 5: outputs and memory --------------------------------------------------------------
def test_a_lone_surrogate_in_output_is_escaped_and_the_worker_survives() -> None:
    async def go() -> tuple[list[list[str]], list[bool], set[int | None]]:
        session = KernelSession(FakeCaller())
        pids = set()
        try:
            results = []
            for code in (
                "var kept = 7",
                'nodeRepl.write("😀".slice(0, 1) + "|" + "😀".slice(1))',
                'throw new Error("bad " + "😀".slice(1))',
                'nodeRepl.write("from code: x\ud800y")',  # the client's own code holds a lone surrogate
                "nodeRepl.write(String(kept))",
            ):
                results.append(await session.run(code))
                pids.add(session.worker_pid)
        finally:
            await session.close()
        return [texts(r) for r in results], [r.is_error for r in results], pids

    out, errors, pids = run(go())
    assert out[1] == ["\\uD83D|\\uDE00"]
    assert out[2] == ["bad \\uDE00"] and errors[2]
    assert out[3] == ["from code: x\\uD800y"]
    assert out[4] == ["7"]  # the same worker, bindings intact: no kernel crash
    assert errors == [False, False, True, False, False]
    assert len(pids) == 1


def test_running_out_of_memory_resets_the_worker_and_says_so() -> None:
    async def go() -> tuple[list[list[str]], list[bool], list[int | None]]:
        session = KernelSession(FakeCaller())
        pids = []
        try:
            results = []
            for code in (
                "var kept = 7",
                "const hog = []; for (;;) hog.push({ a: [1, 2, 3] })",
                "nodeRepl.write(typeof kept)",
                "nodeRepl.write(String(6 * 7))",
            ):
                results.append(await session.run(code, timeout_s=30))
                pids.append(session.worker_pid)
        finally:
            await session.close()
        return [texts(r) for r in results], [r.is_error for r in results], pids

    out, errors, pids = run(go())
    assert out[1] == [OUT_OF_MEMORY] and errors[1]
    assert out[2] == ["undefined"] and not errors[2]  # a fresh worker, not `null` forever
    assert out[3] == ["42"]
    assert pids[0] != pids[2]


# -- item 6: runtime internals out of reach -----------------------------------------------------
STACK_HOOK = """
let outcome = [];
try { Error.prepareStackTrace = (e, sites) => sites.map((s) => s.getFunction()); outcome.push("set"); }
catch (e) { outcome.push(e.name); }
outcome.push(String(Reflect.defineProperty(Error, "prepareStackTrace", { value: (e, s) => s })));
const stack = new Error("probe").stack;
outcome.push(typeof stack);
nodeRepl.write(outcome.join(" "));
"""


def test_stack_trace_hooks_cannot_hand_out_runtime_functions() -> None:
    (result,) = session_run(None, STACK_HOOK)
    assert texts(result) == ["TypeError false string"]  # no CallSite, so no getFunction()


@pytest.mark.parametrize(
    "code",
    [
        'await __cuInvoke("click", {}); var \\u005f_dh$k = 1',
        'await __cuInvoke("click", {}); let \\u{5F}_dh$r = 2',
        'await __cuInvoke("click", {}); function f(\\u005f\\u005fdh$k) { return 1 }',
        'await __cuInvoke("click", {}); \\u005f_dh$k.b([], [])',
    ],
)
def test_identifier_escapes_cannot_name_the_cells_private_parameters(code: str) -> None:
    caller = FakeCaller()
    (result,) = session_run(caller, code)
    assert result.is_error and texts(result)[-1].startswith("SyntaxError: identifiers starting with __dh$")
    assert caller.calls == []  # refused before anything ran


def test_an_escaped_identifier_is_the_same_binding_as_its_plain_spelling() -> None:
    results = session_run(None, "let \\u0061pp = 5", "nodeRepl.write(String(app))")
    assert texts(results[1]) == ["5"]


TOJSON_HOOKS = """
let refused = 0;
for (const attack of [
  () => { Object.prototype.toJSON = () => ({ app: "XTerm", text: "rm -rf ~" }); },
  () => { Array.prototype.toJSON = () => ["XTerm"]; },
  () => { Object.defineProperty(Object.prototype, "toJSON", { value: () => ({}) }); },
  () => { String.prototype.toJSON = () => "XTerm"; },
]) { try { attack(); } catch (_) { refused++; } }
nodeRepl.write(String(refused));
"""


def test_to_json_hooks_cannot_rewrite_requests_or_output() -> None:
    caller = FakeCaller()
    results = session_run(
        caller,
        TOJSON_HOOKS,
        'await __cuInvoke("type_text", { app: "Fixture", text: "hi" }); nodeRepl.write("plain")',
        'await __cuInvoke("click", { app: "Fixture", x: 1, toJSON() { return { app: "XTerm" } } })',
    )
    assert texts(results[0]) == ["4"]
    assert texts(results[1]) == ["plain"]
    # the bridge serializes with its own copier: no toJSON, own data only
    assert caller.calls == [("type_text", {"app": "Fixture", "text": "hi"}), ("click", {"app": "Fixture", "x": 1})]


THEN_HOOKS = """
const inject = () => { __cuInvoke("click", { app: "XTerm", x: 666 }); };
let refused = 0;
for (const attack of [
  () => {
    const then = Promise.prototype.then;
    Promise.prototype.then = function (f, r) { inject(); return then.call(this, f, r); };
  },
  () => { Object.defineProperty(Promise.prototype, "then", { value() { inject(); } }); },
  () => { Object.prototype.then = function (resolve) { inject(); resolve(1); }; },
  () => { Promise.prototype.constructor = function Evil(exec) { inject(); return new Promise(exec); }; },
  () => { Object.defineProperty(Promise, Symbol.species, { get() { inject(); return Promise; } }); },
  () => { const next = [][Symbol.iterator]().__proto__; next.next = function () { inject(); return { done: true }; }; },
  () => { Array.prototype.filter = function () { inject(); return []; }; },
  () => { Map.prototype.get = function () { inject(); }; },
  () => { Function.prototype.apply = function () { inject(); }; },
  () => { Object.defineProperty(Object.prototype, "0", { set() { inject(); } }); },
]) { try { attack(); } catch (_) { refused++; } }
nodeRepl.write(String(refused));
"""


def test_hooks_set_in_one_cell_cannot_add_calls_to_the_next() -> None:
    caller = FakeCaller()
    results = session_run(
        caller,
        THEN_HOOKS,
        'let app = await cua.getApp("Fixture"); await app.click([5, 5]); await app.pressKey("a"); '
        "const all = await Promise.all([1, 2].map(async (n) => n * 2)); nodeRepl.write(all.join(','))",
    )
    assert texts(results[0]) == ["10"]  # every hook was refused
    assert not results[1].is_error, texts(results[1])
    assert texts(results[1])[-1] == "2,4"
    assert [name for name, _ in caller.calls] == ["get_app_state", "click", "press_key"]
    assert all(args.get("app") == "Fixture" for _, args in caller.calls)  # nothing went to XTerm


def test_ordinary_code_still_assigns_inherited_names_on_its_own_objects() -> None:
    code = """
class Oops extends Error { constructor(m) { super(m); this.name = "Oops"; } }
const e = new Oops("boom"); e.message = "changed";
const o = {}; o.toString = () => "custom"; o.then = 5;
nodeRepl.write([e.name, e.message, String(o), o.then, typeof e.stack].join(" "));
"""
    (result,) = session_run(None, code)
    assert texts(result) == ["Oops changed custom 5 string"]


# -- item 8: the worker's confinement ----------------------------------------------------------
def _limits(pid: int) -> dict[str, tuple[str, str]]:
    """/proc/PID/limits by its fixed columns: name, soft, hard."""
    rows = Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]
    return {row[:26].strip(): (row[26:47].strip(), row[47:68].strip()) for row in rows}


@pytest.mark.skipif(not LINUX, reason="seccomp, no_new_privs and /proc are Linux")
def test_the_worker_runs_under_seccomp_no_new_privs_hard_limits_and_not_as_root() -> None:
    async def go() -> tuple[dict[str, str], dict[str, tuple[str, str]], list[str]]:
        session = KernelSession(FakeCaller())
        try:
            results = await cells(session, "var x = 20", "nodeRepl.write(String(x + 22))")
            pid = session.worker_pid
            assert pid is not None
            return status_fields(pid), _limits(pid), texts(results[1])
        finally:
            await session.close()

    status, limits, out = run(go())
    assert out == ["42"]  # confined, and still running cells
    assert status["Seccomp"] == "2"
    assert status["NoNewPrivs"] == "1"
    if os.geteuid() == 0:  # dropped to nobody: real, effective, saved and file-system ids, no groups
        assert status["Uid"] == status["Gid"] == "65534 65534 65534 65534"
        assert status["Groups"] == ""
    assert limits["Max open files"] == ("16", "16")
    assert limits["Max file size"] == ("0", "0")
    assert limits["Max processes"] == ("0", "0")
    assert limits["Max address space"][1] == str(2 * 1024 * 1024 * 1024)


CONFINED_PROBE = """
import ctypes, errno, mmap, os, socket, sys
sys.path.insert(0, {kernel!r})
import confine
layers = confine.confine()
print("layers", layers, flush=True)
attack = sys.argv[1]
try:
    if attack == "open_read":
        os.open("/etc/hostname", os.O_RDONLY)
    elif attack == "create":
        os.open("new-file", os.O_WRONLY | os.O_CREAT, 0o600)
    elif attack == "socket":
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    elif attack == "exec":
        os.execv("/bin/true", ["true"])
    elif attack == "fork":
        os.fork()
    elif attack == "ptrace":
        ctypes.CDLL(None, use_errno=True).ptrace(0, 0, 0, 0)
    elif attack == "mmap_exec":
        mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)
    print("not stopped", flush=True)
except OSError as error:
    print("refused", errno.errorcode.get(error.errno, error.errno), flush=True)
"""


@pytest.mark.skipif(not LINUX, reason="seccomp and Landlock are Linux")
@pytest.mark.parametrize(
    ("attack", "killed"),
    [
        ("open_read", False),
        ("create", False),
        ("socket", True),
        ("exec", True),
        ("fork", True),
        ("ptrace", True),
        ("mmap_exec", False),
    ],
)
def test_the_confinement_the_worker_applies_stops_escapes(tmp_path: Path, attack: str, killed: bool) -> None:
    """The worker's own confine(), in a probe process: each escape is refused or kills it."""
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent(CONFINED_PROBE).format(kernel=str(KERNEL_DIR)))
    done = subprocess.run(
        [sys.executable, "-I", str(script), attack],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=worker_env(tmp_path),
    )
    assert "'seccomp': True" in done.stdout, done.stdout + done.stderr
    assert "not stopped" not in done.stdout
    if killed:
        assert done.returncode == -signal.SIGSYS  # seccomp ended the process at the call
    else:
        assert "refused" in done.stdout, done.stdout + done.stderr
    assert not (tmp_path / "new-file").exists()


@pytest.mark.skipif(not LINUX, reason="the layers are Linux")
def test_doctor_reports_the_active_layers_from_a_started_worker() -> None:
    ok, detail, data = confinement_summary()
    assert ok, detail
    assert "seccomp on (Seccomp: 2)" in detail and "no_new_privs on" in detail
    assert isinstance(data["status"], dict) and data["status"]["NoNewPrivs"] == "1"
