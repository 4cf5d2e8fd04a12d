"""The Wayland display server on GNOME Shell 43 (Mutter), beside the wlroots one.

GNOME has none of the wlroots protocols; everything goes over the session bus:

* ``extension/``: deskhand's own shell extension (package data), installed into the desktop's
  private ``XDG_DATA_HOME`` and enabled before the shell starts (``desktop._gnome``). It exports
  ``dev.deskhand.Shell``: the windows with pid, app id, title, rects, focus and stacking;
  activation and placement; one window's own pixels; text committed through the shell's input
  method. ``org.gnome.Shell.Introspect`` has no pid, position or activation, and
  ``org.gnome.Shell.Screenshot`` answers only allow-listed callers.
* ``_bus``: one jeepney connection with deadlines and pipelined calls.
* ``_shell``: the extension's client (``ShellWindows``) and its window record (``ShellWindow``).
* ``_remote``: input through ``org.gnome.Mutter.RemoteDesktop``, with the linked
  ``org.gnome.Mutter.ScreenCast`` stream absolute pointer motion needs (PipeWire must run).
* ``_clipboard``, ``_keeper``: the clipboard through the RemoteDesktop API's selection calls (the
  transport of ``wayland._clipserver``'s transaction) and its keeper after the session.
* ``_png``: the capture's PNG decoded to BGRX rows by libpng (ctypes), as ``imaging`` does JPEG.
"""
