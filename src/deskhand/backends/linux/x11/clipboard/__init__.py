"""The X11 CLIPBOARD: ``owner`` (snapshot, lazy serving, restore on one thread), ``connection`` (its
private window and event waits), ``reader`` (every target of the current owner, INCR included),
``server`` (answering other clients, ICCCM 2.6.2), ``pipe`` (items on a pipe, starting the keeper)
and ``keeper`` (the detached process that serves a clipboard deskhand handed over).
"""
