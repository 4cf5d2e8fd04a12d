"""The actor: every action of the Executor, on the display seam and the accessibility layer.

``actor`` (``LinuxActor``: each call under the session's lock), ``session`` (connections, the gate
before each burst, element lookup, posting), ``clicks`` (the core's click tiers on AT-SPI),
``pointer`` (clicks at a point, drags), ``scroll`` and ``scroll_witness`` (what a wheel scroll
moved), ``keys`` (key bursts and text), ``focus`` (where the keyboard focus is), ``values`` and
``value_witness`` (whether the app took a value), ``paste`` (the core's paste transaction),
``outcomes`` (the outcome read off the route taken).
"""
