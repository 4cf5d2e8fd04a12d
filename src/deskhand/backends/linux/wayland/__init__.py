"""The Wayland display server for wlroots compositors (sway first; Hyprland, labwc and river speak
the same protocols), beside the X11 one.

* ``_wire``, ``_protocol``: the Wayland wire protocol over the compositor's socket, driven directly
  (standard library only), and our own description of the few interfaces deskhand speaks.
* ``_client``: one connection with its globals (seat, shm, outputs, the wlroots managers).
* ``_ipc``: sway's IPC, the window inventory (pid, app_id, title, rect, focus) and window commands.
* ``_devices``, ``_keymap``: the session's one virtual pointer and one virtual keyboard, with a
  keymap deskhand writes (layout-independent typing).
* ``_screencopy``: capture of an output or a region (no per-window capture on wlroots).
* ``_dataclip``: the clipboard through data control (read every type, offer our own).
"""
