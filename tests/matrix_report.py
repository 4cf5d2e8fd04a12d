"""The real-app matrix report: a pytest plugin (loaded by ``tests/conftest.py``).

A test says which apps and operations it proves with ``@pytest.mark.matrix("Calc", "type",
"save")`` (the app first). A test parametrised by display server (the ``display`` parameter of
``tests/realapps/conftest.py``: ``x11``, ``sway``, ``kwin`` or ``gnome``) counts in that server's column; any other
test in the X11 one. With ``--matrix-report out/matrix.md`` the run writes a Markdown table of
app and operation by display server: ``pass`` when every test marking that cell passed, ``FAIL``
when one failed, ``xfail [n]`` when an xfail records a known gap there (note ``n`` under the table
gives its reason), ``xpass [n]`` when a non-strict one passed this time, ``skip`` when all were
skipped, blank when no test covers it. ``make matrix``
puts that table into README.md between its markers.

A task of the task suite says its app with ``@pytest.mark.task("Calc")``; with ``--task-report
out/tasks.md`` the run writes the solved count per app (a task run on another display server than
X11 counts under "Calc (sway)"), and ``make tasks`` puts it into README.md
between the tasks markers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

import pytest

#: The ``display`` parameter's values, as the table's columns name them (in this order).
DISPLAYS = {"x11": "X11", "sway": "sway", "kwin": "KWin", "gnome": "GNOME"}
#: Notes under the table for a column, whenever it shows (display column -> notes).
COLUMN_NOTES: dict[str, tuple[str, ...]] = {
    "sway": (
        "GIMP 2.10 (GTK 2) and jEdit (Java AWT/Swing) have no Wayland backend: on a Wayland session they need "
        "XWayland, and deskhand drives them only on an X display; the headless sway runs without XWayland, where "
        "deskhand, asked for one, says it needs XWayland (their sway column is that refusal).",
    ),
}
#: (app, operation, display column) -> the outcomes of the tests marking that cell.
_OUTCOMES: dict[tuple[str, str, str], list[str]] = defaultdict(list)
#: The same cells -> the reasons of their xfails.
_REASONS: dict[tuple[str, str, str], list[str]] = defaultdict(list)
#: The task suite's outcomes per app (``@pytest.mark.task("Calc")``, ``--task-report``).
_TASKS: dict[str, list[str]] = defaultdict(list)
#: Per test id, what its last attempt recorded: its matrix cells, its task row, its outcome and its
#: xfail reason (a test rerun after a failure, ``tests/conftest.py``, counts by its last attempt).
_LAST: dict[str, tuple[tuple[tuple[str, str, str], ...], str | None, str, str | None]] = {}
#: Test ids that ran more than once -> why the run before failed (listed under the tables and
#: in the terminal summary).
_RERUN: dict[str, str] = {}
#: Per test id, the failure of its last failed run.
_FAILURE: dict[str, str] = {}
_KEY = pytest.StashKey[Path | None]()
_TASK_KEY = pytest.StashKey[Path | None]()
BEGIN = "<!-- matrix:begin -->"
END = "<!-- matrix:end -->"
MARKERS = {"matrix": (BEGIN, END), "tasks": ("<!-- tasks:begin -->", "<!-- tasks:end -->")}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--matrix-report", default=None, metavar="PATH", help="write the real-app matrix (Markdown) to PATH"
    )
    parser.addoption(
        "--task-report", default=None, metavar="PATH", help="write the task suite's solved counts (Markdown) to PATH"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "matrix(app, *operations): the real-app matrix cells a test proves")
    config.addinivalue_line("markers", "task(app): a task of the task suite (tests/tasks), counted under app")
    out = config.getoption("--matrix-report")
    config.stash[_KEY] = Path(out) if out else None
    tasks = config.getoption("--task-report")
    config.stash[_TASK_KEY] = Path(tasks) if tasks else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    if report.when == "call" or (report.when == "setup" and not report.passed):
        matrix, task = item.get_closest_marker("matrix"), item.get_closest_marker("task")
        column, got = display_column(item), _outcome(report)
        cells: tuple[tuple[str, str, str], ...] = ()
        if matrix is not None and matrix.args:
            app, *ops = matrix.args
            cells = tuple((app, op, column) for op in ops)
        row = None
        if task is not None and task.args:
            row = task.args[0] if column == DISPLAYS["x11"] else f"{task.args[0]} ({column})"
        if item.nodeid in _LAST and item.nodeid not in _RERUN:
            _RERUN[item.nodeid] = _FAILURE.get(item.nodeid, "")
        why = str(report.wasxfail) if got in ("xfail", "xpass") else None
        _LAST[item.nodeid] = (cells, row, got, why)
    if report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        _FAILURE[item.nodeid] = str(getattr(crash, "message", "") or report.longreprtext[-300:]).splitlines()[0][:300]
    return report


def _collect() -> None:
    """``_OUTCOMES``, ``_REASONS`` and ``_TASKS`` from each test's last attempt."""
    for cells, row, got, why in _LAST.values():
        for cell in cells:
            _OUTCOMES[cell].append(got)
            if why is not None:
                _REASONS[cell].append(why)
        if row is not None:
            _TASKS[row].append("pass" if got == "xpass" else got)  # solved, gap or not


def _reruns_note(tasks: bool) -> str:
    """The tests run twice, under the table they belong to: under the task table the tasks, under
    the matrix the others (the terminal summary lists them all)."""
    listed = {n: why for n, why in _RERUN.items() if (n in _LAST and _LAST[n][1] is not None) == tasks}
    if not listed:
        return ""
    return "\nRun a second time after a failure (each cell counts the last run):\n\n" + "".join(
        f"- `{nodeid}`: {why}\n" if why else f"- `{nodeid}`\n" for nodeid, why in listed.items()
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _RERUN:
        terminalreporter.section("run a second time after a failure (the first failure)")
        for nodeid, why in _RERUN.items():
            terminalreporter.line(f"{nodeid}: {why}")


def _outcome(report: pytest.TestReport) -> str:
    if hasattr(report, "wasxfail"):
        return "xfail" if report.skipped else "xpass"  # xpass: a non-strict xfail that passed this time
    return "pass" if report.passed else "skip" if report.skipped else "FAIL"


def display_column(item: pytest.Item) -> str:
    """The column of a test: its ``display`` parameter's, or X11 for a test without one."""
    callspec = getattr(item, "callspec", None)
    name = str(callspec.params.get("display", "x11")) if callspec is not None else "x11"
    return DISPLAYS.get(name, name)


def table(
    outcomes: Mapping[tuple[str, str, str], list[str]], reasons: Mapping[tuple[str, str, str], list[str]] | None = None
) -> str:
    """The Markdown table of ``outcomes``: a row per app and operation (apps in first-seen order,
    each app's operations likewise), a column per display server (X11, then sway, then others as
    seen), and under it the reasons of its xfails, numbered."""
    seen = list(dict.fromkeys(c for _, _, c in outcomes))
    columns = [c for c in DISPLAYS.values() if c in seen] + [c for c in seen if c not in DISPLAYS.values()]
    apps = list(dict.fromkeys(a for a, _, _ in outcomes))
    rows = sorted(dict.fromkeys((a, o) for a, o, _ in outcomes), key=lambda r: apps.index(r[0]))  # stable
    notes: list[str] = []
    lines = ["| app | operation | " + " | ".join(columns) + " |", "|---|---|" + "---|" * len(columns)]
    for app, op in rows:
        cells = []
        for column in columns:
            cell = _cell(outcomes.get((app, op, column), []))
            if cell in ("xfail", "xpass"):
                why = "; ".join(dict.fromkeys((reasons or {}).get((app, op, column), [])))
                if why:
                    note = f"{column}: {why}"
                    if note not in notes:
                        notes.append(note)
                    cell = f"{cell} [{notes.index(note) + 1}]"
            cells.append(cell)
        lines.append(f"| {app} | {op} | " + " | ".join(cells) + " |")
    if notes:
        lines += ["", *(f"- [{n}] {note}" for n, note in enumerate(notes, 1))]
    extra = [f"- {column}: {note}" for column in columns for note in COLUMN_NOTES.get(column, ())]
    if extra:
        lines += [*([] if notes else [""]), *extra]
    return "\n".join(lines) + "\n"


def _cell(outcomes: list[str]) -> str:
    for worst in ("FAIL", "xfail", "xpass"):
        if worst in outcomes:
            return worst
    if not outcomes:
        return ""
    return "skip" if all(o == "skip" for o in outcomes) else "pass"


def task_table(outcomes: dict[str, list[str]]) -> str:
    """The Markdown table of the task suite: per app, its tasks and how many were solved; a task
    marked with a known gap (``xfail``) or failed counts as unsolved."""
    lines = ["| app | tasks | solved | known gap | failed |", "|---|---|---|---|---|"]
    total = [0, 0, 0, 0]
    for app, got in outcomes.items():
        row = [len(got), got.count("pass"), got.count("xfail"), got.count("FAIL")]
        total = [a + b for a, b in zip(total, row, strict=True)]
        lines.append(f"| {app} | " + " | ".join(map(str, row)) + " |")
    lines.append("| **all** | " + " | ".join(f"**{n}**" for n in total) + " |")
    return "\n".join(lines) + "\n"


def pytest_sessionfinish(session: pytest.Session) -> None:
    _collect()
    for key, outcomes, text in (
        (_KEY, _OUTCOMES, lambda: table(_OUTCOMES, _REASONS) + _reruns_note(tasks=False)),
        (_TASK_KEY, _TASKS, lambda: task_table(_TASKS) + _reruns_note(tasks=True)),
    ):
        out = session.config.stash.get(key, None)
        if out is None or not outcomes:
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text())


def splice(readme: str, generated: str, markers: tuple[str, str] = (BEGIN, END)) -> str:
    """``readme`` with the text between ``markers`` (the matrix's by default) replaced by ``generated``."""
    begin, end = markers
    head, sep, rest = readme.partition(begin)
    if not sep:
        raise ValueError(f"README has no {begin} marker")
    _old, sep2, tail = rest.partition(end)
    if not sep2:
        raise ValueError(f"README has no {end} marker")
    return f"{head}{begin}\n{generated}{end}{tail}"


if __name__ == "__main__":
    import sys

    readme, generated = Path(sys.argv[1]), Path(sys.argv[2])
    which = MARKERS[sys.argv[3] if len(sys.argv) > 3 else "matrix"]
    readme.write_text(splice(readme.read_text(), generated.read_text(), which))
