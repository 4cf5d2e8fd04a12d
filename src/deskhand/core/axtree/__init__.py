"""deskhand.core.axtree."""
