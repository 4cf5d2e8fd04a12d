"""The core's element model (``deskhand.core.axtree.model``) as JSON, for goldens recorded from
real apps: ``tests/realapps/test_golden_models.py`` records what the Linux reader built for an
app, and ``tests/unit/test_axtree_golden.py`` renders it with no display.

Only the model's own fields are kept; ``ref`` (a live AT-SPI object reference) is dropped, and a
field at its default is left out so a recorded file stays small and readable. An element listed
by two parents (LibreOffice's root pane) is one object in the model, which the renderer prints
once: the file writes it once, and its second place is ``{"same": N}``, N its pre-order number.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from deskhand.core.axtree import AppTree, Element, WindowTree
from deskhand.core.geometry import Rect

_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Element) if f.default is not dataclasses.MISSING}


def _rect(r: Rect | None) -> list[float] | None:
    return None if r is None else [r.x, r.y, r.width, r.height]


def _element(el: Element, order: dict[int, int]) -> dict[str, Any]:
    if id(el) in order:
        return {"same": order[id(el)]}
    order[id(el)] = len(order)
    out: dict[str, Any] = {"role": el.role}
    for f in dataclasses.fields(Element):
        name = f.name
        if name in ("role", "ref", "children", "frame"):
            continue
        value = getattr(el, name)
        if name in _DEFAULTS and value == _DEFAULTS[name] and type(value) is type(_DEFAULTS[name]):
            continue
        out[name] = list(value) if isinstance(value, tuple) else value
    if el.frame is not None:
        out["frame"] = _rect(el.frame)
    if el.children:
        out["children"] = [_element(c, order) for c in el.children]
    return out


def dump(tree: AppTree) -> dict[str, Any]:
    """``tree`` as plain JSON data; the focused element is named by its pre-order number."""
    order: dict[int, int] = {}
    windows = [
        {"window_id": w.window_id, "title": w.title, "frame": _rect(w.frame), "root": _element(w.root, order)}
        for w in tree.windows
    ]
    menu_bar = None if tree.menu_bar is None else _element(tree.menu_bar, order)
    return {
        "app_label": tree.app_label,
        "app_name": tree.app_name,
        "pid": tree.pid,
        "windows": windows,
        "focused": None if tree.focused is None else order.get(id(tree.focused)),
        "menu_bar": menu_bar,
        "truncated": tree.truncated,
        "timed_out": tree.timed_out,
    }


def _load_rect(data: list[float] | None) -> Rect | None:
    return None if data is None else Rect(*data)


def _load_element(data: dict[str, Any], walk: list[Element]) -> Element:
    if "same" in data:
        return walk[data["same"]]
    fields = dict(data)
    children = fields.pop("children", [])
    frame = fields.pop("frame", None)
    if "actions" in fields:
        fields["actions"] = tuple(fields["actions"])
    el = Element(**fields, frame=_load_rect(frame))
    walk.append(el)
    el.children = [_load_element(c, walk) for c in children]
    return el


def load(data: dict[str, Any]) -> AppTree:
    walk: list[Element] = []
    windows = [
        WindowTree(w["window_id"], w["title"], _load_element(w["root"], walk), _load_rect(w["frame"]))
        for w in data["windows"]
    ]
    menu_bar = None if data["menu_bar"] is None else _load_element(data["menu_bar"], walk)
    focused = data["focused"]
    return AppTree(
        data["app_label"],
        data["app_name"],
        data["pid"],
        windows,
        focused=None if focused is None else walk[focused],
        menu_bar=menu_bar,
        truncated=data["truncated"],
        timed_out=data["timed_out"],
    )


# A list of numbers or strings on one line, as ``json.dumps(indent=...)`` would spread it out.
_FLAT_LIST = re.compile(r'\[\s*((?:(?:-?[\d.]+|"(?:[^"\\]|\\.)*"),\s*)*(?:-?[\d.]+|"(?:[^"\\]|\\.)*"))\s*\]')


def write(path: Path, tree: AppTree) -> None:
    text = json.dumps(dump(tree), indent=1, ensure_ascii=False)
    text = _FLAT_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    path.write_text(text + "\n", encoding="utf-8")


def read(path: Path) -> AppTree:
    return load(json.loads(path.read_text(encoding="utf-8")))
