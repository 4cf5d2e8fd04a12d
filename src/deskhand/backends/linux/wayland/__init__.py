"""The Wayland display server, beside the X11 one: the wire, what all compositors share, and one
package per compositor family behind one seam.

* ``compositor``: the seam (:class:`~.compositor.Compositor`: windows, focus and placement,
  capture, input, clipboard) and its records (``View``, ``Frame``); ``registry`` picks the
  implementation for a session (``DESKHAND_COMPOSITOR``, else what the session shows).
* ``_wire``, ``_protocol``: the Wayland wire protocol over the compositor's socket, driven directly
  (standard library only), and our own description of the few interfaces deskhand speaks.
* ``_client``: one connection with its globals (seat, shm, outputs, the managers deskhand binds).
* ``_keymap``: the keymap deskhand writes for a virtual keyboard (layout-independent typing).
* ``_clipserver``: the paste's clipboard transaction, one for every compositor over a transport;
  ``_dataclip``, ``_keeper``: data control, its transport on wlroots and KWin (read every type,
  offer our own, keep the user's after the session).
* ``wlroots/``: the wlroots protocols (virtual pointer and keyboard, screencopy).
* ``sway/``: sway's IPC and the seam on sway.
"""
