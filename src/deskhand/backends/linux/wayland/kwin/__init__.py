"""KWin (KDE Plasma 5.27) as a :class:`~deskhand.backends.linux.wayland.compositor.Compositor`:
windows, activation and placement through KWin scripts over D-Bus (``scripting``), input through
``org_kde_kwin_fake_input`` with the session's own keymap (``fakeinput``), capture through
``org.kde.KWin.ScreenShot2`` (``screenshot``: per window, so a covered window is captured as it
is), the clipboard through data control (KWin offers ``zwlr_data_control_manager_v1``)."""
