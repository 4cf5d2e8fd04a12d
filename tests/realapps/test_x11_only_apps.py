"""Apps whose toolkit draws only on X11 (GIMP 2.10's GTK 2, jEdit's Java AWT/Swing), asked for on
a Wayland session without XWayland (the headless sway): they cannot show a window there (their
matrix rows' sway column is a strict xfail, ``test_gimp.py``, ``test_jedit.py``), and deskhand
tells the agent why, in the refusal of ``cua.getApp``, instead of a bare "not running"."""

from __future__ import annotations

import pytest
from _apps import need
from _cells import run_cell

from deskhand.desktop import VirtualDesktop

pytestmark = [pytest.mark.slow, pytest.mark.displays("sway")]


@pytest.mark.parametrize(
    ("app", "binary", "toolkit"),
    [("GIMP", "gimp", "GTK 2"), ("jEdit", "jedit", "Java (AWT/Swing)")],
    ids=["gimp", "jedit"],
)
def test_binding_an_x11_only_app_on_wayland_says_it_needs_xwayland(
    app: str, binary: str, toolkit: str, matrix_desktop: VirtualDesktop
) -> None:
    need(binary)
    result = run_cell(matrix_desktop, f'await cua.getApp("{app}");')
    assert result.is_error, result.text
    assert f'"{app}" is not running.' in result.text, result.text
    assert f"a {toolkit} app, which has no Wayland backend" in result.text, result.text
    assert "XWayland" in result.text and "deskhand desktop start" in result.text, result.text


def test_a_wayland_app_that_is_not_running_gets_no_toolkit_note(matrix_desktop: VirtualDesktop) -> None:
    need("mousepad")
    result = run_cell(matrix_desktop, 'await cua.getApp("Mousepad");')
    assert result.is_error and '"Mousepad" is not running.' in result.text, result.text
    assert "Wayland backend" not in result.text, result.text
