"""AT-SPI's role numbers and state bits by name (``atspi.enums``), against at-spi2-core's numbering."""

from __future__ import annotations

from deskhand.backends.linux.atspi.enums import Role, State, role_set
from deskhand.backends.linux.atspi.roles import ROLE_NAMES, ROLE_TO_AX


def test_roles_keep_at_spi_numbers_and_names() -> None:
    assert (Role.MENU, Role.PUSH_BUTTON, Role.DOCUMENT_WEB, Role.STATIC) == (33, 43, 95, 116)
    assert Role.PUSH_BUTTON_MENU == 129
    assert (ROLE_NAMES[43], ROLE_NAMES[82], ROLE_NAMES[129]) == ("push button", "document frame", "push button menu")
    assert ROLE_TO_AX[Role.ENTRY] == "AXTextField" and ROLE_TO_AX[Role.LIST_ITEM] == "AXRow"


def test_states_are_bits_of_the_64_bit_state_set() -> None:
    assert State.CHECKED == 1 << 4 and State.SHOWING == 1 << 25 and State.MANAGES_DESCENDANTS == 1 << 31
    assert State.READ_ONLY == 1 << 43
    assert all(s.value & (s.value - 1) == 0 for s in State)  # one bit each (INVALID is 0)


def test_a_role_set_holds_plain_numbers() -> None:
    roles = role_set(Role.LIST_ITEM, Role.TABLE_ROW)
    assert roles == {32, 90} and all(type(r) is int for r in roles)
