"""The wlroots protocols every wlroots compositor (sway, Hyprland, labwc, river) offers: the
session's virtual pointer and keyboard with deskhand's keymap (``devices``), and capture of an
output or a region (``screencopy``; no per-window capture)."""
