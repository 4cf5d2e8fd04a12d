"""jEdit (Java Swing): bound by the name a user sees ("jEdit", ``/usr/bin/jedit``) whatever jars
are on its class path; with the ATK wrapper it takes typing and a find/replace through its dialog,
and saves, as the file on disk shows. Without the wrapper it binds screenshot-only, and the state
says how to enable ``libatk-wrapper-java``.

Java's AWT has no Wayland backend: the sway column is a strict xfail that deskhand's own refusal
satisfies (asked for jEdit on Wayland, it says the app needs XWayland)."""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _apps import Apps, need
from _display import X11_ONLY, MatrixExecutor, launched, on_sway
from _observe import handle, state_with

from deskhand.backends.linux.executor import LinuxExecutor

#: The sway column (``displays``) of every jEdit row.
JEDIT_SWAY = on_sway(X11_ONLY.format(toolkit="Java's AWT/Swing", app="jEdit"))
pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway", sway=JEDIT_SWAY)]

ATK_WRAPPER_JAR = Path("/usr/share/java/java-atk-wrapper.jar")
#: What Debian's java-wrappers read to start jEdit with the ATK wrapper.
WITH_WRAPPER = {
    "JAVA_ARGS": "-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper",
    "JAVA_CLASSPATH": str(ATK_WRAPPER_JAR),
}


def _jedit(
    apps: Apps, tmp: Path, name: str, *, env: dict[str, str], on_bus: bool, ex: MatrixExecutor | None = None
) -> Any:
    """jEdit on a file of its own; with ``ex``, a jEdit that cannot start (no X display) is asked
    for by name, and deskhand's answer raised (``_display.launched``)."""
    settings = tmp / f"settings-{name}"
    settings.mkdir()
    # No tip of the day and no welcome help: the editor opens on the file asked for.
    (settings / "properties").write_text("tip.show=false\nfirstTime=false\n")
    path = tmp / f"{name}.txt"
    path.write_text("hello\n")
    argv = [need("jedit"), "-nosplash", "-nobackground", f"-settings={settings}", "-noserver", str(path)]
    full = apps.home(f"jedit-{name}")
    full.update(env)

    def launch() -> Any:
        return apps.launcher(argv, env=full, timeout_s=60.0, wait_on_bus=on_bus)

    running = launched(ex, "jEdit", launch) if ex is not None else launch()
    if ex is not None and not on_bus:  # its window, or deskhand's answer once it has exited
        deadline = time.monotonic() + 60
        while True:
            if not running.app.running():
                ex.resolve("jEdit")  # deskhand's answer for an app that could not start
                raise AssertionError("jEdit exited before it showed a window")
            with contextlib.suppress(TimeoutError):
                apps.launcher.desktop.wait_for_window(running.app.pid, 0.5)
                break
            assert time.monotonic() < deadline, "jEdit showed no window"
    return running, path


@pytest.fixture(scope="module")
def jedit_tmp(display: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder per display server's run (their settings folders would clash)."""
    if not ATK_WRAPPER_JAR.exists():
        pytest.skip("libatk-wrapper-java is not installed (make deps installs it)")
    yield tmp_path_factory.mktemp(f"jedit-{display}")


@pytest.mark.matrix("jEdit", "bind by name", "type", "find/replace", "save")
def test_jedit_bound_by_name_types_replaces_and_saves(apps: Apps, mex: LinuxExecutor, jedit_tmp: Path) -> None:
    _running, path = _jedit(apps, jedit_tmp, "doc", env=WITH_WRAPPER, on_bus=True, ex=mex)
    app = mex.resolve("jEdit")
    assert mex.resolve(shutil.which("jedit") or "jedit").pid == app.pid
    assert app.display_name == "jEdit"
    state_with(mex, app, r"^Window: \"jEdit - doc\.txt\"", timeout_s=60)
    mex.press_key(app, "ctrl+Home")
    mex.type_text(app, "alpha beta alpha\n")
    mex.press_key(app, "ctrl+f")  # Search > Find...
    state = state_with(mex, app, r"^Window: \"Search And Replace\"")
    for field, value in (("Search for:", "alpha"), ("Replace with:", "omega")):
        result = mex.set_value(app, handle(state, rf"text \(settable, string\) {field}"), value)
        assert result.outcome.effect == "confirmed", result
    state = state_with(mex, app, r"push button Replace All")
    mex.click(app, element=handle(state, r"push button Replace All"))
    mex.press_key(app, "Escape")
    state_with(mex, app, r"^Window: \"jEdit - doc\.txt")
    mex.press_key(app, "ctrl+s")
    deadline = time.monotonic() + 30
    while path.read_text() != "omega beta omega\nhello\n" and time.monotonic() < deadline:
        time.sleep(0.2)  # polling the saved file with a deadline
    assert path.read_text() == "omega beta omega\nhello\n"


@pytest.mark.matrix("jEdit", "no ATK wrapper: notice")
def test_jedit_without_the_atk_wrapper_binds_with_the_fix_in_the_notice(
    apps: Apps, mex: LinuxExecutor, jedit_tmp: Path
) -> None:
    running, _path = _jedit(apps, jedit_tmp, "plain", env={}, on_bus=False, ex=mex)
    app = mex.resolve(str(_java_pid(running.app.pid)))
    assert app.display_name == "jEdit"
    text = state_with(mex, app, r"libatk-wrapper-java")
    assert "-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper" in text
    assert "its toolkit has none" not in text


def _java_pid(pid: int, timeout_s: float = 30.0) -> int:
    """The java process the wrapper script became (it ``exec``s java: the same pid)."""
    deadline = time.monotonic() + timeout_s
    while Path(f"/proc/{pid}/exe").resolve().name != "java":
        assert time.monotonic() < deadline, "jedit never ran java"
        time.sleep(0.1)  # polling /proc with a deadline
    return pid
