"""deskhand.kernel."""
