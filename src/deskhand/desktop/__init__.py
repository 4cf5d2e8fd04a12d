"""deskhand.desktop."""
