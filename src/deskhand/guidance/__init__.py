"""deskhand.guidance."""
