"""runtime.open_executor picks the macOS backend lazily and refuses it off Darwin with a fix text."""

from __future__ import annotations

import sys

import pytest

from deskhand.core.errors import BackendUnavailable
from deskhand.runtime import open_executor


@pytest.mark.skipif(sys.platform == "darwin", reason="the refusal is for other platforms")
def test_macos_backend_is_refused_off_darwin_without_importing_pyobjc() -> None:
    with pytest.raises(BackendUnavailable, match=r"install `deskhand\[macos\]`") as info:
        open_executor(backend="macos")
    assert info.value.not_dispatched
    assert "deskhand.backends.macos.executor" not in sys.modules
