"""The AT-SPI vocabulary the Linux mapping reads: role numbers and names, their AX roles,
state bits and action names (``_mapping`` maps nodes with it; ``_values`` acts with it).

The core renders in the macOS vocabulary (``AXButton``, ``AXTextField``, ...), so each AT-SPI
role number maps to one AX role; ``ROLE_NAMES`` keeps the AT-SPI role name ("push button",
"check box") that the state text shows.
"""

from __future__ import annotations

import re
from typing import Final

#: AtspiRole numbers → their AT-SPI names (the ``role_description`` we show).
ROLE_NAMES: Final[dict[int, str]] = {
    1: "accelerator label",
    2: "alert",
    3: "animation",
    4: "arrow",
    5: "calendar",
    6: "canvas",
    7: "check box",
    8: "check menu item",
    9: "color chooser",
    10: "column header",
    11: "combo box",
    12: "date editor",
    13: "desktop icon",
    14: "desktop frame",
    15: "dial",
    16: "dialog",
    17: "directory pane",
    18: "drawing area",
    19: "file chooser",
    20: "filler",
    21: "focus traversable",
    22: "font chooser",
    23: "frame",
    24: "glass pane",
    25: "html container",
    26: "icon",
    27: "image",
    28: "internal frame",
    29: "label",
    30: "layered pane",
    31: "list",
    32: "list item",
    33: "menu",
    34: "menu bar",
    35: "menu item",
    36: "option pane",
    37: "page tab",
    38: "page tab list",
    39: "panel",
    40: "password text",
    41: "popup menu",
    42: "progress bar",
    43: "push button",
    44: "radio button",
    45: "radio menu item",
    46: "root pane",
    47: "row header",
    48: "scroll bar",
    49: "scroll pane",
    50: "separator",
    51: "slider",
    52: "spin button",
    53: "split pane",
    54: "status bar",
    55: "table",
    56: "table cell",
    57: "table column header",
    58: "table row header",
    59: "tearoff menu item",
    60: "terminal",
    61: "text",
    62: "toggle button",
    63: "tool bar",
    64: "tool tip",
    65: "tree",
    66: "tree table",
    67: "unknown",
    68: "viewport",
    69: "window",
    70: "extended",
    71: "header",
    72: "footer",
    73: "paragraph",
    74: "ruler",
    75: "application",
    76: "autocomplete",
    77: "editbar",
    78: "embedded",
    79: "entry",
    80: "chart",
    81: "caption",
    82: "document frame",
    83: "heading",
    84: "page",
    85: "section",
    86: "redundant object",
    87: "form",
    88: "link",
    89: "input method window",
    90: "table row",
    91: "tree item",
    92: "document spreadsheet",
    93: "document presentation",
    94: "document text",
    95: "document web",
    96: "document email",
    97: "comment",
    98: "list box",
    99: "grouping",
    100: "image map",
    101: "notification",
    102: "info bar",
    103: "level bar",
    104: "title bar",
    105: "block quote",
    106: "audio",
    107: "video",
    108: "definition",
    109: "article",
    110: "landmark",
    111: "log",
    112: "marquee",
    113: "math",
    114: "rating",
    115: "timer",
    116: "static",
    129: "push button menu",
}

_AX_ROLES: Final[dict[str, tuple[int, ...]]] = {
    "AXWindow": (2, 16, 23, 28, 69),
    "AXButton": (43, 129),
    "AXCheckBox": (7, 62),
    "AXRadioButton": (37, 44),
    "AXMenuItem": (8, 35, 45, 59),
    "AXMenuBar": (34,),
    "AXMenu": (41,),
    "AXTextField": (40, 52, 79),
    "AXStaticText": (1, 29, 73, 81, 116),
    "AXHeading": (83,),
    "AXList": (31, 98),
    "AXOutline": (65, 66),
    "AXTable": (55, 92),
    "AXRow": (32, 90, 91),
    "AXCell": (10, 47, 56, 57, 58),
    "AXScrollArea": (49,),
    "AXScrollBar": (48,),
    "AXSlider": (15, 51),
    "AXProgressIndicator": (42,),
    "AXLevelIndicator": (103,),
    "AXComboBox": (11,),
    "AXTabGroup": (38,),
    "AXToolbar": (63,),
    "AXImage": (26, 27),
    "AXLink": (88,),
    "AXWebArea": (95,),
    "AXHelpTag": (64,),
    "AXRuler": (74,),
    "AXSplitGroup": (53,),
    "AXUnknown": (50, 67, 86),
}
ROLE_TO_AX: Final[dict[int, str]] = {n: ax for ax, nums in _AX_ROLES.items() for n in nums}

# AtspiStateType bits.
CHECKED: Final = 1 << 4
EDITABLE: Final = 1 << 7
ENABLED: Final = 1 << 8
EXPANDED: Final = 1 << 10
FOCUSED: Final = 1 << 12
HORIZONTAL: Final = 1 << 14
MULTI_LINE: Final = 1 << 17
PRESSED: Final = 1 << 20
SELECTED: Final = 1 << 23
SENSITIVE: Final = 1 << 24
VERTICAL: Final = 1 << 29
READ_ONLY: Final = 1 << 43

#: Roles of controls: each has a line of its own (check box, combo box, push button, radio
#: button, password text, slider, spin button, text, toggle button, entry, list box, menu button).
CONTROL_ROLES: Final = frozenset({7, 11, 40, 43, 44, 51, 52, 61, 62, 79, 98, 129})
BOOLEAN_ROLES: Final = frozenset({7, 8, 44, 45, 62})
FLOAT_SETTABLE_ROLES: Final = frozenset({15, 48, 51, 52})
ROW_CHILD_ROLES: Final = frozenset({32, 90, 91})
ROLE_FILLER: Final = 20
ROLE_STATIC: Final = 116
ROLE_SCROLL_BAR: Final = 48
ROLE_SCROLL_PANE: Final = 49
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
