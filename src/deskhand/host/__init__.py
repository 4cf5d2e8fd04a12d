"""deskhand.host."""
