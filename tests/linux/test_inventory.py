"""list_apps and resolve against the GTK and Qt fixtures and Mousepad: identities from /proc; on X11
and on sway."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deskhand.backends.linux import procfs
from deskhand.core.errors import NativeError

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway", "kwin")]


def test_inventory_lists_running_apps_with_identities(launch, executor):
    gtk = launch.gtk_fixture()
    qt = launch.qt_fixture()
    pad = launch(["mousepad"])
    apps = executor.list_apps()
    running = [a for a in apps if a.is_running]
    assert apps[: len(running)] == running  # running first
    by_id = {a.id: a for a in running}
    assert by_id["gtk_fixture.py"].pid == gtk.pid
    assert by_id["qt_fixture.py"].pid == qt.pid
    assert by_id["org.xfce.mousepad"].pid == pad.pid
    assert by_id["org.xfce.mousepad"].display_name == "Mousepad"
    # installed apps follow only when used within 14 days (the desktop's recently-used.xbel has none)
    assert all(a.is_running or a.last_used_date for a in apps)
    for pid in (gtk.pid, qt.pid, pad.pid):
        ident = executor.resolve(str(pid)).identity
        assert ident.proven
        assert ident.executable == str(Path(f"/proc/{pid}/exe").readlink())
        assert ident.start_time == procfs.start_time(pid)
    assert executor.resolve("Mousepad").pid == pad.pid
    assert executor.resolve("org.xfce.mousepad").pid == pad.pid
    assert executor.resolve("/usr/bin/mousepad").pid == pad.pid
    assert executor.resolve("qt_fixture.py").pid == qt.pid


def test_resolve_errors(launch, executor):
    launch.gtk_fixture()
    launch.gtk_fixture()
    with pytest.raises(NativeError) as err:
        executor.resolve("gtk_fixture.py")
    assert err.value.code == "ambiguous_target"
    with pytest.raises(NativeError) as err:
        executor.resolve("No Such App")
    assert err.value.code == "target_not_running"
    with pytest.raises(NativeError) as err:
        executor.resolve(str(os.getpid()))  # deskhand itself is never a target
    assert err.value.code == "target_not_running"


def test_a_pid_resolved_again_is_the_same_process_or_not_running(launch, executor):
    """The second resolve of a pid is proven from /proc (no listing): the same identity while the
    process runs, and ``target_not_running`` once it has exited (it is never served from memory)."""
    gtk = launch.gtk_fixture()
    first = executor.resolve(str(gtk.pid))
    again = executor.resolve(str(gtk.pid))
    assert again.identity == first.identity and again.display_name == first.display_name
    assert again.identity.start_time == procfs.start_time(gtk.pid)
    assert gtk.app.stop() is not None  # exited and reaped
    with pytest.raises(NativeError) as err:
        executor.resolve(str(gtk.pid))
    assert err.value.code == "target_not_running"
