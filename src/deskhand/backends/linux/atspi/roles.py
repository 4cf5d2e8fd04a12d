"""The AT-SPI vocabulary the Linux mapping reads: role numbers and names, their AX roles,
state bits and action names (``atspi.mapping`` maps nodes with it; ``act.values`` acts with it).

The core renders in the macOS vocabulary (``AXButton``, ``AXTextField``, ...), so each AT-SPI
role number maps to one AX role; ``ROLE_NAMES`` keeps the AT-SPI role name ("push button",
"check box") that the state text shows.
"""

from __future__ import annotations

import re
from typing import Final

from deskhand.backends.linux.atspi.enums import Role, State, role_set

#: AtspiRole numbers → their AT-SPI names (the ``role_description`` we show).
ROLE_NAMES: Final[dict[int, str]] = {r.value: r.name.lower().replace("_", " ") for r in Role}

_AX_ROLES: Final[dict[str, tuple[Role, ...]]] = {
    "AXWindow": (Role.ALERT, Role.DIALOG, Role.FRAME, Role.INTERNAL_FRAME, Role.WINDOW),
    "AXButton": (Role.PUSH_BUTTON, Role.PUSH_BUTTON_MENU),
    "AXCheckBox": (Role.CHECK_BOX, Role.TOGGLE_BUTTON),
    "AXRadioButton": (Role.PAGE_TAB, Role.RADIO_BUTTON),
    "AXMenuItem": (Role.CHECK_MENU_ITEM, Role.MENU_ITEM, Role.RADIO_MENU_ITEM, Role.TEAROFF_MENU_ITEM),
    "AXMenuBar": (Role.MENU_BAR,),
    "AXMenu": (Role.POPUP_MENU,),
    "AXTextField": (Role.PASSWORD_TEXT, Role.SPIN_BUTTON, Role.ENTRY),
    "AXStaticText": (Role.ACCELERATOR_LABEL, Role.LABEL, Role.PARAGRAPH, Role.CAPTION, Role.STATIC),
    "AXHeading": (Role.HEADING,),
    "AXList": (Role.LIST, Role.LIST_BOX),
    "AXOutline": (Role.TREE, Role.TREE_TABLE),
    "AXTable": (Role.TABLE, Role.DOCUMENT_SPREADSHEET),
    "AXRow": (Role.LIST_ITEM, Role.TABLE_ROW, Role.TREE_ITEM),
    "AXCell": (Role.COLUMN_HEADER, Role.ROW_HEADER, Role.TABLE_CELL, Role.TABLE_COLUMN_HEADER, Role.TABLE_ROW_HEADER),
    "AXScrollArea": (Role.SCROLL_PANE,),
    "AXScrollBar": (Role.SCROLL_BAR,),
    "AXSlider": (Role.DIAL, Role.SLIDER),
    "AXProgressIndicator": (Role.PROGRESS_BAR,),
    "AXLevelIndicator": (Role.LEVEL_BAR,),
    "AXComboBox": (Role.COMBO_BOX,),
    "AXTabGroup": (Role.PAGE_TAB_LIST,),
    "AXToolbar": (Role.TOOL_BAR,),
    "AXImage": (Role.ICON, Role.IMAGE),
    "AXLink": (Role.LINK,),
    "AXWebArea": (Role.DOCUMENT_WEB,),
    "AXHelpTag": (Role.TOOL_TIP,),
    "AXRuler": (Role.RULER,),
    "AXSplitGroup": (Role.SPLIT_PANE,),
    "AXUnknown": (Role.SEPARATOR, Role.UNKNOWN, Role.REDUNDANT_OBJECT),
}
ROLE_TO_AX: Final[dict[int, str]] = {n.value: ax for ax, nums in _AX_ROLES.items() for n in nums}

# AtspiStateType bits the reader and the mapping check for every node, as plain ints bound once here
# for every module (``atspi.enums`` says why); a check that runs once per action uses the member.
CHECKED: Final = State.CHECKED.value
EDITABLE: Final = State.EDITABLE.value
ENABLED: Final = State.ENABLED.value
EXPANDED: Final = State.EXPANDED.value
FOCUSED: Final = State.FOCUSED.value
HORIZONTAL: Final = State.HORIZONTAL.value
MANAGES_DESCENDANTS: Final = State.MANAGES_DESCENDANTS.value
MULTI_LINE: Final = State.MULTI_LINE.value
PRESSED: Final = State.PRESSED.value
SELECTED: Final = State.SELECTED.value
SENSITIVE: Final = State.SENSITIVE.value
SHOWING: Final = State.SHOWING.value
VERTICAL: Final = State.VERTICAL.value
VISIBLE: Final = State.VISIBLE.value
READ_ONLY: Final = State.READ_ONLY.value
FOCUSABLE: Final = State.FOCUSABLE.value

#: Roles of controls: each has a line of its own (check box, combo box, push button, radio
#: button, password text, slider, spin button, text, toggle button, entry, list box, menu button).
CONTROL_ROLES: Final = role_set(
    Role.CHECK_BOX,
    Role.COMBO_BOX,
    Role.PASSWORD_TEXT,
    Role.PUSH_BUTTON,
    Role.RADIO_BUTTON,
    Role.SLIDER,
    Role.SPIN_BUTTON,
    Role.TEXT,
    Role.TOGGLE_BUTTON,
    Role.ENTRY,
    Role.LIST_BOX,
    Role.PUSH_BUTTON_MENU,
)
BOOLEAN_ROLES: Final = role_set(
    Role.CHECK_BOX, Role.CHECK_MENU_ITEM, Role.RADIO_BUTTON, Role.RADIO_MENU_ITEM, Role.TOGGLE_BUTTON
)
FLOAT_SETTABLE_ROLES: Final = role_set(Role.DIAL, Role.SCROLL_BAR, Role.SLIDER, Role.SPIN_BUTTON)
ROW_CHILD_ROLES: Final = role_set(Role.LIST_ITEM, Role.TABLE_ROW, Role.TREE_ITEM)
#: Roles whose element is a text field or area (by MULTI_LINE): text, document frame and text.
TEXT_AREA_ROLES: Final = role_set(Role.TEXT, Role.DOCUMENT_FRAME, Role.DOCUMENT_TEXT)
# AtspiRole numbers checked for every node, as plain ints (see the state bits above).
ROLE_FILLER: Final = Role.FILLER.value
ROLE_MENU: Final = Role.MENU.value
ROLE_MENU_BAR: Final = Role.MENU_BAR.value
ROLE_COMBO_BOX: Final = Role.COMBO_BOX.value
ROLE_PAGE_TAB: Final = Role.PAGE_TAB.value
ROLE_PASSWORD_TEXT: Final = Role.PASSWORD_TEXT.value
ROLE_ENTRY: Final = Role.ENTRY.value
ROLE_SPIN_BUTTON: Final = Role.SPIN_BUTTON.value
#: Roles of text entries the keyboard may set when they have no working EditableText (``act.values``).
TEXT_ENTRY_ROLES: Final = role_set(Role.ENTRY, Role.TEXT)
ROLE_STATIC: Final = Role.STATIC.value
ROLE_SCROLL_BAR: Final = Role.SCROLL_BAR.value
ROLE_SCROLL_PANE: Final = Role.SCROLL_PANE.value
#: Page-scroll actions a scroll area gets per axis of its shown scroll bars (contract 6.8 names).
VERTICAL_PAGE_ACTIONS: Final = ("AXScrollUpByPage", "AXScrollDownByPage")
HORIZONTAL_PAGE_ACTIONS: Final = ("AXScrollLeftByPage", "AXScrollRightByPage")

#: AT-SPI action names → the contract's AX names (the renderer hides AXPress and friends).
ACTION_NAMES: Final[dict[str, str]] = {
    "click": "AXPress",
    "press": "AXPress",
    "activate": "AXPress",
    "toggle": "AXPress",
    "jump": "AXPress",
    "open": "AXPress",
    "select": "AXPick",
    "showmenu": "AXShowMenu",
    "show menu": "AXShowMenu",
    "menu": "AXShowMenu",
    "increase": "AXIncrement",
    "decrease": "AXDecrement",
    "expand or contract": "AXExpandOrContract",
}
#: Actions that only move the keyboard focus: not shown as secondary actions.
FOCUS_ACTIONS: Final = frozenset({"setfocus", "set focus", "focus", "grab focus"})
#: GTK 4 lists every widget's built-in action groups as actions ("clipboard.copy" on each label):
#: the groups that every widget of a kind has are not shown (an app's own, "win."/"app.", are).
GTK4_WIDGET_ACTION_GROUPS: Final = frozenset(
    {"clipboard", "selection", "link", "menu", "text", "misc", "default", "window", "context-menu", "gesture"}
)
#: GTK 4 names a widget that has no accessible name after its type ("GtkButton", "AdwGizmo").
GTK_TYPE_NAME: Final = re.compile(r"(Gtk|Adw|Gdk|Gsk)[A-Z][A-Za-z]*")
