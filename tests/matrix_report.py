"""The real-app matrix report: a pytest plugin (loaded by ``tests/conftest.py``).

A test says which apps and operations it proves with ``@pytest.mark.matrix("Calc", "type",
"save")`` (the app first). With ``--matrix-report out/matrix.md`` the run writes a Markdown table
of apps x operations: ``pass`` when every test marking that cell passed, ``FAIL`` when one
failed, ``xfail`` when a strict xfail records a known gap there, ``skip`` when all were skipped,
blank when no test covers it. ``make matrix`` puts that
table into README.md between its markers.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

_OUTCOMES: dict[tuple[str, str], list[str]] = defaultdict(list)
_KEY = pytest.StashKey[Path | None]()
BEGIN = "<!-- matrix:begin -->"
END = "<!-- matrix:end -->"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--matrix-report", default=None, metavar="PATH", help="write the real-app matrix (Markdown) to PATH"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "matrix(app, *operations): the real-app matrix cells a test proves")
    out = config.getoption("--matrix-report")
    config.stash[_KEY] = Path(out) if out else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    marker = item.get_closest_marker("matrix")
    if marker is None or not marker.args:
        return report
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if hasattr(report, "wasxfail") and report.skipped:
            outcome = "xfail"
        else:
            outcome = "pass" if report.passed else "skip" if report.skipped else "FAIL"
        app, *ops = marker.args
        for op in ops:
            _OUTCOMES[(app, op)].append(outcome)
    return report


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


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = session.config.stash.get(_KEY, None)
    if out is None or not _OUTCOMES:
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(table(_OUTCOMES))


def splice(readme: str, generated: str) -> str:
    """``readme`` with the text between the matrix markers replaced by ``generated``."""
    head, sep, rest = readme.partition(BEGIN)
    if not sep:
        raise ValueError(f"README has no {BEGIN} marker")
    _old, sep2, tail = rest.partition(END)
    if not sep2:
        raise ValueError(f"README has no {END} marker")
    return f"{head}{BEGIN}\n{generated}{END}{tail}"


if __name__ == "__main__":
    import sys

    readme, generated = Path(sys.argv[1]), Path(sys.argv[2])
    readme.write_text(splice(readme.read_text(), generated.read_text()))
