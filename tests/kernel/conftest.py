"""Fixtures of the kernel tests; the shared helpers live in ``_kernel_support``."""

from __future__ import annotations

import pytest
from _kernel_support import FakeCaller


@pytest.fixture
def caller() -> FakeCaller:
    return FakeCaller()
