"""A full AT-SPI dump in the style OSWorld's VM server serves (system python with python3-pyatspi).

A long-lived process, as that server is: each line on stdin asks for one dump of the whole desktop
(every app, every node, with its states, attributes, extents, text and value, as XML); the answer
is one line on stdout with the dump's length in characters. Written for ``bench/bench_agent.py``.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

import pyatspi

MAX_DEPTH = 50
MAX_CHILDREN = 500


def _node(acc, depth: int) -> ET.Element:
    role = acc.getRoleName().replace(" ", "-") or "unknown"
    el = ET.Element(role)
    el.set("name", acc.name or "")
    states = acc.getState().getStates()
    for state in states:
        el.set("st_" + pyatspi.stateToString(state).replace(" ", "-"), "true")
    try:
        for pair in acc.getAttributes():
            key, _, value = pair.partition(":")
            el.set("attr_" + key.replace(" ", "-"), value)
    except Exception:
        pass
    try:
        comp = acc.queryComponent()
        el.set("screencoord", str(tuple(comp.getPosition(pyatspi.XY_SCREEN))))
        el.set("size", str(tuple(comp.getSize())))
    except NotImplementedError:
        pass
    try:
        text = acc.queryText()
        el.text = text.getText(0, text.characterCount)
    except NotImplementedError:
        pass
    try:
        value = acc.queryValue()
        el.set("value", str(value.currentValue))
    except NotImplementedError:
        pass
    try:
        action = acc.queryAction()
        for i in range(action.nActions):
            el.set("action_" + (action.getName(i) or str(i)).replace(" ", "-"), "true")
    except NotImplementedError:
        pass
    if depth < MAX_DEPTH:
        for i, child in enumerate(acc):
            if i >= MAX_CHILDREN:
                break
            if child is not None:
                el.append(_node(child, depth + 1))
    return el


def dump() -> str:
    root = ET.Element("desktop-frame")
    for app in pyatspi.Registry.getDesktop(0):
        if app is None:
            continue
        try:
            root.append(_node(app, 0))
        except Exception:
            continue  # an app that went away mid-dump
    return ET.tostring(root, encoding="unicode")


def main() -> None:
    for _line in sys.stdin:
        print(len(dump()), flush=True)


if __name__ == "__main__":
    main()
