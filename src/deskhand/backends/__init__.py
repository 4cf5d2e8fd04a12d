"""deskhand.backends."""
