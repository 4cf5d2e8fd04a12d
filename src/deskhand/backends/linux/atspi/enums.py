"""AT-SPI's role numbers and state bits, by name: ``Role`` (AtspiRole) and ``State`` (AtspiStateType,
one bit per state in the 64-bit set that ``GetState`` returns as two 32-bit words).

Every role and state the backend tests names its member here, and a check uses the member
(``states & State.EDITABLE``), except where it runs for every node of a read: ``atspi.roles`` binds
those members' plain ``int`` values once (``SHOWING``, ``ROLE_MENU``), as an ``int & State``
operation runs ``IntFlag``'s Python code and costs about fifty times an ``int & int`` one.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag


class Role(IntEnum):
    """AtspiRole numbers (at-spi2-core ``atspi-constants.h``); ``atspi.roles.ROLE_NAMES`` shows them."""

    ACCELERATOR_LABEL = 1
    ALERT = 2
    ANIMATION = 3
    ARROW = 4
    CALENDAR = 5
    CANVAS = 6
    CHECK_BOX = 7
    CHECK_MENU_ITEM = 8
    COLOR_CHOOSER = 9
    COLUMN_HEADER = 10
    COMBO_BOX = 11
    DATE_EDITOR = 12
    DESKTOP_ICON = 13
    DESKTOP_FRAME = 14
    DIAL = 15
    DIALOG = 16
    DIRECTORY_PANE = 17
    DRAWING_AREA = 18
    FILE_CHOOSER = 19
    FILLER = 20
    FOCUS_TRAVERSABLE = 21
    FONT_CHOOSER = 22
    FRAME = 23
    GLASS_PANE = 24
    HTML_CONTAINER = 25
    ICON = 26
    IMAGE = 27
    INTERNAL_FRAME = 28
    LABEL = 29
    LAYERED_PANE = 30
    LIST = 31
    LIST_ITEM = 32
    MENU = 33
    MENU_BAR = 34
    MENU_ITEM = 35
    OPTION_PANE = 36
    PAGE_TAB = 37
    PAGE_TAB_LIST = 38
    PANEL = 39
    PASSWORD_TEXT = 40
    POPUP_MENU = 41
    PROGRESS_BAR = 42
    PUSH_BUTTON = 43
    RADIO_BUTTON = 44
    RADIO_MENU_ITEM = 45
    ROOT_PANE = 46
    ROW_HEADER = 47
    SCROLL_BAR = 48
    SCROLL_PANE = 49
    SEPARATOR = 50
    SLIDER = 51
    SPIN_BUTTON = 52
    SPLIT_PANE = 53
    STATUS_BAR = 54
    TABLE = 55
    TABLE_CELL = 56
    TABLE_COLUMN_HEADER = 57
    TABLE_ROW_HEADER = 58
    TEAROFF_MENU_ITEM = 59
    TERMINAL = 60
    TEXT = 61
    TOGGLE_BUTTON = 62
    TOOL_BAR = 63
    TOOL_TIP = 64
    TREE = 65
    TREE_TABLE = 66
    UNKNOWN = 67
    VIEWPORT = 68
    WINDOW = 69
    EXTENDED = 70
    HEADER = 71
    FOOTER = 72
    PARAGRAPH = 73
    RULER = 74
    APPLICATION = 75
    AUTOCOMPLETE = 76
    EDITBAR = 77
    EMBEDDED = 78
    ENTRY = 79
    CHART = 80
    CAPTION = 81
    DOCUMENT_FRAME = 82
    HEADING = 83
    PAGE = 84
    SECTION = 85
    REDUNDANT_OBJECT = 86
    FORM = 87
    LINK = 88
    INPUT_METHOD_WINDOW = 89
    TABLE_ROW = 90
    TREE_ITEM = 91
    DOCUMENT_SPREADSHEET = 92
    DOCUMENT_PRESENTATION = 93
    DOCUMENT_TEXT = 94
    DOCUMENT_WEB = 95
    DOCUMENT_EMAIL = 96
    COMMENT = 97
    LIST_BOX = 98
    GROUPING = 99
    IMAGE_MAP = 100
    NOTIFICATION = 101
    INFO_BAR = 102
    LEVEL_BAR = 103
    TITLE_BAR = 104
    BLOCK_QUOTE = 105
    AUDIO = 106
    VIDEO = 107
    DEFINITION = 108
    ARTICLE = 109
    LANDMARK = 110
    LOG = 111
    MARQUEE = 112
    MATH = 113
    RATING = 114
    TIMER = 115
    STATIC = 116
    PUSH_BUTTON_MENU = 129


class State(IntFlag):
    """AtspiStateType bits."""

    INVALID = 1 << 0
    ACTIVE = 1 << 1
    ARMED = 1 << 2
    BUSY = 1 << 3
    CHECKED = 1 << 4
    COLLAPSED = 1 << 5
    DEFUNCT = 1 << 6
    EDITABLE = 1 << 7
    ENABLED = 1 << 8
    EXPANDABLE = 1 << 9
    EXPANDED = 1 << 10
    FOCUSABLE = 1 << 11
    FOCUSED = 1 << 12
    HAS_TOOLTIP = 1 << 13
    HORIZONTAL = 1 << 14
    ICONIFIED = 1 << 15
    MODAL = 1 << 16
    MULTI_LINE = 1 << 17
    MULTISELECTABLE = 1 << 18
    OPAQUE = 1 << 19
    PRESSED = 1 << 20
    RESIZABLE = 1 << 21
    SELECTABLE = 1 << 22
    SELECTED = 1 << 23
    SENSITIVE = 1 << 24
    SHOWING = 1 << 25
    SINGLE_LINE = 1 << 26
    STALE = 1 << 27
    TRANSIENT = 1 << 28
    VERTICAL = 1 << 29
    VISIBLE = 1 << 30
    MANAGES_DESCENDANTS = 1 << 31
    INDETERMINATE = 1 << 32
    REQUIRED = 1 << 33
    TRUNCATED = 1 << 34
    ANIMATED = 1 << 35
    INVALID_ENTRY = 1 << 36
    SUPPORTS_AUTOCOMPLETION = 1 << 37
    SELECTABLE_TEXT = 1 << 38
    IS_DEFAULT = 1 << 39
    VISITED = 1 << 40
    CHECKABLE = 1 << 41
    HAS_POPUP = 1 << 42
    READ_ONLY = 1 << 43


def role_set(*roles: Role) -> frozenset[int]:
    """The plain numbers of ``roles``, for a membership test that runs for every node."""
    return frozenset(r.value for r in roles)
