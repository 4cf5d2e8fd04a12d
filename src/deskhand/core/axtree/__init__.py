"""deskhand.core.axtree: the accessibility state text, handles, diffs and index map (section 3).

model.py     Element / WindowTree / AppTree, filled by backends
text.py      sanitization, role text, values, traits, secondary action names
line.py      one element's line suffix, elision, row texts, link text
rows.py      compact grid rows: one line a row with its cells' texts
render.py    the walk (caps, elision, rows, links), full text, context tail, envelope
handles.py   gN:id handles, the epoch counter, id reconciliation, refresh policy
diff.py      the diff text with ~ and + markers and removed-id ranges
indexmap.py  the facade's integer-index map parsed from state texts and diffs
observer.py  Observer: the per-executor state a backend calls once per observation
settle.py    the UI settle wait after a mutation
"""

from deskhand.core.axtree.handles import EpochCounter, Handle
from deskhand.core.axtree.indexmap import IndexMap
from deskhand.core.axtree.model import AppTree, Element, WindowTree
from deskhand.core.axtree.observer import Observation, Observer
from deskhand.core.axtree.render import frame_envelope

__all__ = [
    "AppTree",
    "Element",
    "EpochCounter",
    "Handle",
    "IndexMap",
    "Observation",
    "Observer",
    "WindowTree",
    "frame_envelope",
]
