"""deskhand.backends.linux."""
