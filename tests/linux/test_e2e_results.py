"""What an action did reaches the agent: ``js`` App methods resolve to ``{effect, route, evidence?,
...}`` (core/effects), and the claim is checked against the GTK fixture's own log."""

from __future__ import annotations

import json

import pytest
from test_e2e_js import run_cells

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway", "kwin")]

CELL = """
const app = await cua.getApp("{pid}");
const state = await app.getAXState({{disableDiffing: true, emit: false}});
const handle = (pattern) => state.match(new RegExp("(g\\\\d+:\\\\d+) " + pattern))[1];
const out = {{}};
const entry = handle("text \\\\(settable, string\\\\) Name");
out.setValue = await app.setValue(entry, "hello");
out.focus = await app.click(entry);
out.raw = typeof (await cua.computer.press_key({{app: "{pid}", key: "End"}}));
out.typed = await app.typeText(" world");
out.click = await app.click(handle("push button Apply"));
nodeRepl.write(JSON.stringify(out));
"""


def test_app_methods_resolve_to_their_outcome(launch, desktop):
    app = launch.gtk_fixture()
    app.events.wait_for("ready")
    (result,) = run_cells(desktop.env, [CELL.format(pid=app.pid)])
    assert not result.is_error, result.text
    out = json.loads(result.text.splitlines()[-1])

    # set_value read the field back: confirmed, with the values before and after
    assert out["setValue"]["effect"] == "confirmed" and out["setValue"]["route"] == "accessibility"
    assert (out["setValue"]["before"], out["setValue"]["after"]) == ("", "hello")
    assert out["setValue"]["evidence"][0]["kind"] == "value_readback"
    app.events.wait_for("text", name="Name", text="hello")

    # a click into the entry is a synthetic click (it places the caret): nothing to read back
    assert out["focus"]["effect"] == "unverifiable" and out["focus"]["route"] == "synthetic_events"
    assert out["raw"] == "undefined"  # the seed's raw methods are unchanged

    # typing into the focused entry went through its text interface (on Wayland: the session's
    # keyboard) and read back as typed
    typed_route = "synthetic_events" if desktop.wayland else "accessibility"
    assert out["typed"]["effect"] == "confirmed" and out["typed"]["route"] == typed_route, out["typed"]
    app.events.wait_for("text", name="Name", text="hello world")

    # pressing a button through its accessible action is a receipt, never a confirmation
    assert out["click"]["effect"] == "unverifiable" and out["click"]["route"] == "accessibility"
    assert out["click"]["evidence"] == [{"kind": "event_receipt", "detail": "the app performed the accessible action"}]
    app.events.wait_for("clicked", name="Apply")
