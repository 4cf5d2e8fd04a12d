"""deskhand.server."""
