"""deskhand.core."""
