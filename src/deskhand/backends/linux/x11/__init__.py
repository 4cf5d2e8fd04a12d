"""The X11 implementation of the display seam (``display.py``), on python-xlib.

``connection`` (the display, atoms, extensions), ``requests`` (the hot path's requests, encoded
with ``struct``), ``windows`` (EWMH windows of a pid, the key window, activation), ``gate`` and
``grabs`` (the gate's one round trip, window-manager button grabs), ``input`` (XTest posting that
tracks what is held) and ``keymap`` (keysyms to keycodes, temporary keycodes), ``capture`` and
``shm`` (one window's pixels through XComposite and MIT-SHM), ``xdnd`` (watching a drag),
``clipboard/`` (the CLIPBOARD owner, reader, server and keeper process).
"""
