"""sway as a :class:`~deskhand.backends.linux.wayland.compositor.Compositor`: windows and window
commands from its IPC (``ipc``), input and capture through the wlroots protocols (``wlroots/``),
the clipboard through data control (``_clipserver``)."""
