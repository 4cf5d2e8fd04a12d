"""The SDK raises the host's typed errors (one ``errors.from_result``), and every helper code is a known one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import anyio.from_thread
import pytest

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.core.errors import HELPER_CODES, AppDeniedError, ArgumentError, GrantRequiredError, NativeError
from deskhand.host import AppPolicy, Host
from deskhand.sdk import Computer
from deskhand.server.service import Service

MOUSEPAD = FakeApp("Mousepad", "org.xfce.mousepad", pid=701)
XTERM = FakeApp("XTerm", "xterm", pid=702, executable="/usr/bin/xterm")
SRC = Path(__file__).resolve().parents[2] / "src" / "deskhand"


@pytest.fixture
def rig() -> Iterator[tuple[Computer, FakeExecutor]]:
    fake = FakeExecutor([MOUSEPAD, XTERM])
    service = Service(Host(fake, policy=AppPolicy.from_mapping({})), None)
    portal_cm = anyio.from_thread.start_blocking_portal()
    computer = Computer(service, portal_cm.__enter__(), portal_cm, None)
    try:
        yield computer, fake
    finally:
        computer.close()


def test_a_denied_app_raises_app_denied_error(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, fake = rig
    with pytest.raises(AppDeniedError, match=r"not allowed to use the app 'XTerm'") as info:
        computer.get_app("XTerm")
    assert info.value.code == "app_denied" and info.value.not_dispatched
    assert "get_app_state" not in fake.methods()


def test_a_system_key_without_the_grant_raises_grant_required_error(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, fake = rig
    app = computer.get_app("Mousepad")
    with pytest.raises(GrantRequiredError, match=r"press_key 'ctrl\+alt\+BackSpace' is a system key combination"):
        app.press_key("ctrl+alt+BackSpace")
    assert "press_key" not in fake.methods()


def test_other_codes_stay_native_errors_and_type_errors_argument_errors(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, _ = rig
    app = computer.get_app("Mousepad")
    with pytest.raises(NativeError) as info:
        app.press_key("ctrl+nosuchkey")
    assert type(info.value) is NativeError and info.value.code == "unknown_key"
    with pytest.raises(ArgumentError, match="paste format must be text, md, or html"):
        app.paste("x", format="rtf")


def test_every_helper_code_raised_in_the_source_is_a_known_one() -> None:
    literal = re.compile(r'(?:NativeError\(\s*|_not_dispatched\(|_refused\(|code=|code = )"([a-z_]+)"')
    raised = {m for path in SRC.rglob("*.py") for m in literal.findall(path.read_text(encoding="utf-8"))}
    assert raised, "the scan found nothing"
    assert raised <= set(HELPER_CODES), sorted(raised - set(HELPER_CODES))
