"""The accessibility layer: AT-SPI over D-Bus in pure Python, knowing nothing of any display server.

``connection`` (the bus, the registry, the names the rest imports), ``calls`` (calls, replies,
deadlines, links), ``wire`` and ``wire_body`` (the reply reader), ``read``, ``walk`` and ``tree``
(one bounded read), ``nodes`` (what a read returns), ``visible`` (the visible part of containers
never enumerated), ``enums`` and ``roles`` (role numbers and state bits), ``mapping`` (onto the
core's element model), ``transients`` (what an app's state adds to its windows' trees: open menus,
the refetch of a handle's element), ``element`` (the calls made on one element: actions, text, values).
"""
