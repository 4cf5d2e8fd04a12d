"""The task suite: OSWorld-style tasks on real apps, each solved by a scripted agent through the
MCP ``js`` tool and checked from the app's side.

agent     one MCP client session on the service of ``display``'s desktop (``tests/displays.py``:
          X11 unless a task is marked ``@pytest.mark.displays("x11", "sway")``), shared by every
          task on that display server
apps      module-scoped launchers of the real apps (``tests/realapps/_apps.py``), each with a
          private profile under the module's temp folder; every app is stopped when the module ends
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# the matrix's helpers import each other as top-level modules (``from _apps import Apps``)
sys.path.append(str(Path(__file__).resolve().parent.parent / "realapps"))
from _agent import Agent

from deskhand.desktop import VirtualDesktop
from desktop_support import Launcher
from realapps._apps import Apps, require_accessibility


def _agent_on(vd: VirtualDesktop) -> Iterator[Agent]:
    require_accessibility(vd)
    client = Agent(vd.env)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="session")
def x11_agent(desktop: VirtualDesktop) -> Iterator[Agent]:
    yield from _agent_on(desktop)


@pytest.fixture(scope="session")
def sway_agent(sway_desktop: VirtualDesktop) -> Iterator[Agent]:
    yield from _agent_on(sway_desktop)


@pytest.fixture(scope="module")
def agent(display: str, request: pytest.FixtureRequest) -> Agent:
    """The session's agent on ``display`` (closed before its desktop stops)."""
    found: Agent = request.getfixturevalue(f"{display}_agent")
    return found


@pytest.fixture(scope="module")
def apps(display_desktop: VirtualDesktop, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Apps]:
    tmp = tmp_path_factory.mktemp("task-apps")
    launcher = Launcher(display_desktop, tmp)
    try:
        yield Apps(launcher, tmp)
    finally:
        launcher.close()


@pytest.fixture(autouse=True)
def _transcript_mark(request: pytest.FixtureRequest) -> None:
    """Where this test's cells begin in the agent's transcript (shown when the task fails)."""
    agent_ = request.getfixturevalue("agent") if "agent" in request.fixturenames else None
    request.node.stash[_START] = (agent_, len(agent_.transcript) if agent_ is not None else 0)


_START = pytest.StashKey[tuple[Agent | None, int]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    if report.when == "call" and not report.passed and _START in item.stash:
        agent_, start = item.stash[_START]
        if agent_ is not None:
            cells = agent_.transcript[start:][-6:]
            text = "\n\n".join(f">>> {code}\n<<< {'ERROR ' if r.error else ''}{r.text[-3000:]}" for code, r in cells)
            report.sections.append(("agent transcript (last cells)", text))
    return report
