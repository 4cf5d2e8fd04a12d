"""The observer: ``discovery`` (which apps run, under every name they can be bound by), ``tree`` (an
app's accessibility tree for one observation), ``shot`` (the key window's screenshot), ``settle``
and ``quiet`` (when an observation may look: the app's AT-SPI events and the damage on its window).
"""
