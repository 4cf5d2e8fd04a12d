"""deskhand.backends.macos."""
