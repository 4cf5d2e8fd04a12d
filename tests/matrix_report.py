"""The real-app matrix report: a pytest plugin (loaded by ``tests/conftest.py``).

A test says which apps and operations it proves with ``@pytest.mark.matrix("Calc", "type",
"save")`` (the app first). With ``--matrix-report out/matrix.md`` the run writes a Markdown table
of apps x operations: ``pass`` when every test marking that cell passed, ``FAIL`` when one
failed, ``xfail`` when a strict xfail records a known gap there, ``skip`` when all were skipped,
blank when no test covers it. ``make matrix`` puts that
table into README.md between its markers.

A task of the task suite says its app with ``@pytest.mark.task("Calc")``; with ``--task-report
out/tasks.md`` the run writes the solved count per app, and ``make tasks`` puts it into README.md
between the tasks markers.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

_OUTCOMES: dict[tuple[str, str], list[str]] = defaultdict(list)
#: The task suite's outcomes per app (``@pytest.mark.task("Calc")``, ``--task-report``).
_TASKS: dict[str, list[str]] = defaultdict(list)
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
        if matrix is not None and matrix.args:
            app, *ops = matrix.args
            for op in ops:
                _OUTCOMES[(app, op)].append(_outcome(report))
        if task is not None and task.args:
            _TASKS[task.args[0]].append(_outcome(report))
    return report


def _outcome(report: pytest.TestReport) -> str:
    if hasattr(report, "wasxfail") and report.skipped:
        return "xfail"
    return "pass" if report.passed else "skip" if report.skipped else "FAIL"


def table(outcomes: dict[tuple[str, str], list[str]]) -> str:
    """The Markdown table of ``outcomes`` (apps in first-seen order, operations likewise)."""
    apps = list(dict.fromkeys(a for a, _ in outcomes))
    ops = list(dict.fromkeys(o for _, o in outcomes))
    lines = ["| app | " + " | ".join(ops) + " |", "|---|" + "---|" * len(ops)]
    for app in apps:
        cells = []
        for op in ops:
            got = outcomes.get((app, op), [])
            cells.append(_cell(got))
        lines.append(f"| {app} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _cell(outcomes: list[str]) -> str:
    for worst in ("FAIL", "xfail"):
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
    for key, outcomes, render in ((_KEY, _OUTCOMES, table), (_TASK_KEY, _TASKS, task_table)):
        out = session.config.stash.get(key, None)
        if out is None or not outcomes:
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render(outcomes))  # type: ignore[operator]


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
