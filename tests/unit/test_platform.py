"""One platform vocabulary inside; sys.platform and the js target spell it otherwise at the edges."""

from __future__ import annotations

import pytest

from deskhand.backends import BACKENDS, open_backend
from deskhand.backends.fake import FakeExecutor
from deskhand.core.errors import BackendUnavailable
from deskhand.core.platform import from_sys_platform, js_target


@pytest.mark.parametrize(
    ("sys_platform", "platform"),
    [("linux", "linux"), ("linux2", "linux"), ("darwin", "macos"), ("win32", "windows"), ("freebsd14", None)],
)
def test_sys_platform_names_map_onto_the_one_vocabulary(sys_platform: str, platform: str | None) -> None:
    assert from_sys_platform(sys_platform) == platform


def test_the_js_target_says_mac_for_macos_only() -> None:
    assert [js_target(p) for p in ("linux", "macos", "windows")] == ["linux", "mac", "windows"]


def test_backends_are_one_table_and_an_unknown_name_is_refused_with_a_fix() -> None:
    assert set(BACKENDS) == {"linux", "macos", "fake"}
    assert isinstance(open_backend("fake", {}), FakeExecutor)
    with pytest.raises(BackendUnavailable, match=r"no deskhand backend for platform 'amiga'; use Linux with X11"):
        open_backend("amiga", {})
