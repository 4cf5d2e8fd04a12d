# ruff: noqa: E501 - the xbel fixture reads best one application per line
"""Binding by what a user knows, without a desktop: pids (numbers, ASCII digits only), the
Linux resolver's kinds of names, desktop-entry ids, and listApps' 14-day window."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest

from deskhand.backends.base import ProcessIdentity
from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.backends.linux import inventory as inv
from deskhand.core.errors import ArgumentError, NativeError
from deskhand.host import AppPolicy, Host, ToolResult

APP = FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)


def call(host: Host, name: str, args: object) -> ToolResult:
    async def go() -> ToolResult:
        return await host.call_tool(name, args)  # type: ignore[arg-type]

    return anyio.run(go)


def test_raw_tools_keep_app_a_string() -> None:
    fake = FakeExecutor([APP])
    host = Host(fake, policy=AppPolicy())  # type: ignore[arg-type]
    result = call(host, "get_app_state", {"app": 4242})  # the JS facade turns getApp(4242) into "4242"
    assert result.is_error and "app must be a string" in result.text
    assert not call(host, "get_app_state", {"app": "4242"}).is_error


@pytest.mark.parametrize("app", ["²", "١٢٣", "4²"])
def test_digits_that_are_not_ascii_are_no_pid_and_nothing_is_dispatched(app: str) -> None:
    fake = FakeExecutor([APP])
    host = Host(fake, policy=AppPolicy())  # type: ignore[arg-type]
    result = call(host, "get_app_state", {"app": app})
    assert result.is_error and result.not_dispatched
    assert f'"{app}" is not a pid' in result.text  # "4²".isdigit() is True too, yet int("4²") fails
    assert result.structured["code"] == "bad_args"


def _proc(pid: int, app_id: str, exe: str, name: str, **kw: object) -> inv.Found:
    ident = ProcessIdentity(pid=pid, app_id=app_id, executable=exe, start_time=1000.0 + pid)
    proc = inv.RunningProcess(ident, name)
    classes = tuple(kw.get("classes", ()))  # type: ignore[call-overload]
    names = inv.names_of(proc, kw.get("entries", ()), classes)  # type: ignore[arg-type]
    programs = tuple(kw.get("programs", ()))  # type: ignore[call-overload]
    names |= {p.lower() for p in programs}
    return inv.Found(
        proc, frozenset(names), frozenset(kw.get("titles", ())), str(kw.get("argv0", "")), classes, programs
    )  # type: ignore[arg-type]


WRITER = inv.DesktopApp(
    "libreoffice-writer",
    "LibreOffice Writer",
    "libreoffice",
    "/opt/lo/soffice",
    "libreoffice-writer",
    ("soffice.bin",),
    False,
)
CALC = inv.DesktopApp(
    "libreoffice-calc",
    "LibreOffice Calc",
    "libreoffice",
    "/opt/lo/soffice",
    "libreoffice-calc",
    ("soffice.bin",),
    False,
)
START = inv.DesktopApp("libreoffice-startcenter", "LibreOffice", "libreoffice", "/opt/lo/soffice", "", ("soffice.bin",))


def test_resolve_kinds_of_names() -> None:
    office = _proc(
        10, "libreoffice-startcenter", "/opt/lo/soffice.bin", "LibreOffice Writer",
        entries=(WRITER, CALC, START), classes=[("libreoffice-writer", "libreoffice-writer")],
        titles=["untitled 1 - libreoffice writer"], argv0="/opt/lo/soffice.bin",
    )  # fmt: skip
    tk = _proc(11, "canvas.py", "/usr/bin/python3.11", "Tk", classes=[("canvas", "Tk")], titles=["deskhand tk canvas"])
    both = [office, tk]
    assert inv.resolve("LibreOffice Writer", both).pid == 10
    assert inv.resolve("libreoffice-writer", both).pid == 10
    assert inv.resolve("soffice.bin", both).pid == 10
    assert inv.resolve("/opt/lo/soffice.bin", both).pid == 10
    assert inv.resolve("Untitled 1 - LibreOffice Writer", both).pid == 10
    assert inv.resolve("Deskhand Tk Canvas", both).pid == 11  # a window title
    assert inv.resolve("tk", both).pid == 11  # WM_CLASS class
    assert inv.resolve(" 11 ", both).pid == 11
    with pytest.raises(ArgumentError):
        inv.resolve("١١", both)
    with pytest.raises(ArgumentError):
        inv.resolve("¹¹", both)
    with pytest.raises(NativeError) as err:
        inv.resolve("LibreOffice Impress", both)
    assert err.value.code == "target_not_running"
    twin = _proc(12, "canvas.py", "/usr/bin/python3.11", "Tk", classes=[("canvas", "Tk")])
    with pytest.raises(NativeError) as err:
        inv.resolve("tk", [office, tk, twin])
    assert err.value.code == "ambiguous_target"
    assert "11, 12" in err.value.message


def test_wrapper_scripts_lead_to_what_they_run(tmp_path: Path) -> None:
    wrapper = tmp_path / "chromium"
    wrapper.write_text('#!/bin/sh\nAPPNAME=chromium\nexec /usr/lib/$APPNAME/$APPNAME "$@"\n')
    binary = tmp_path / "mousepad"
    binary.write_bytes(b"\x7fELF mousepad")
    assert inv.wrapped_names(str(wrapper)) == ("chromium",)
    assert inv.wrapped_names(str(binary)) == ()
    browser = _proc(20, "chromium", "/usr/lib/chromium/chromium", "Chromium", argv0="/usr/lib/chromium/chromium")
    assert inv.resolve(str(wrapper), [browser]).pid == 20
    with pytest.raises(NativeError):
        inv.resolve(str(binary), [browser])


JEDIT_SCRIPT = """#!/bin/sh
. /usr/lib/java-wrappers/java-wrappers.sh
find_java_runtime java8
find_jars /usr/share/jedit/jedit.jar
run_java org.gjt.sp.jedit.jEdit "$@"
"""


def test_java_apps_answer_to_their_main_class_their_entry_and_their_wrapper(tmp_path: Path) -> None:
    from deskhand.backends.linux import procfs  # noqa: PLC0415

    script = tmp_path / "jedit"
    script.write_text(JEDIT_SCRIPT)
    assert inv.wrapped_names(str(script)) == ("jedit", "jedit.jar", "org.gjt.sp.jedit.jEdit")
    entry = inv.DesktopApp("jedit", "jEdit", "jedit", str(script), "jedit", inv.wrapped_names(str(script)))
    ids = inv.program_ids([entry])
    # The ATK wrapper's jar comes last on the class path (Debian's JAVA_CLASSPATH): the main class names the app.
    args = ["-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper", "-classpath",
            "/usr/share/java/java-atk-wrapper.jar:/usr/share/jedit/jedit.jar", "org.gjt.sp.jedit.jEdit", "-nosplash"]  # fmt: skip
    assert procfs.java_program(args) == ("org.gjt.sp.jedit.jEdit", ("java-atk-wrapper.jar", "jedit.jar"))
    assert procfs.java_program(["-Xmx1g", "-jar", "/opt/x/Tool.jar", "file"]) == ("Tool.jar", ("Tool.jar",))
    assert procfs.java_program(["-p", "mods", "-m", "app.main/org.example.Main"])[0] == "org.example.Main"
    main, jars = procfs.java_program(args)
    assert next(ids[k] for k in (main, *jars) if k in ids) == "jedit"
    editor = _proc(
        30, "jedit", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "jEdit", entries=(entry,),
        classes=[("org-gjt-sp-jedit-jEdit", "org-gjt-sp-jedit-jEdit")], programs=("org.gjt.sp.jedit.jEdit", "jEdit"),
    )  # fmt: skip
    for name in ("jEdit", "jedit", "org-gjt-sp-jedit-jEdit", "org.gjt.sp.jedit.jEdit", str(script)):
        assert inv.resolve(name, [editor]).pid == 30, name
    with pytest.raises(NativeError):
        inv.resolve("java-atk-wrapper.jar", [editor])


def test_a_java_app_off_the_bus_is_told_of_the_atk_wrapper() -> None:
    from deskhand.core.axtree import notices  # noqa: PLC0415

    facts = notices.Facts(lines=["App=jedit (pid 1)"], accessible=False, toolkit="java")
    (text,) = notices.notices(facts)
    assert "libatk-wrapper-java" in text
    assert "-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper" in text
    assert not notices.has_accessibility("java")  # it binds screenshot-only


def test_a_gtk2_app_off_the_bus_binds_screenshot_only_with_the_modules_to_load() -> None:
    from deskhand.core.axtree import notices  # noqa: PLC0415

    facts = notices.Facts(lines=["App=gimp (pid 1)"], accessible=False, toolkit="gtk2")
    (text,) = notices.notices(facts)
    assert text.startswith("Notice: this app is not on the accessibility bus")
    assert "GTK_MODULES=gail:atk-bridge" in text and "work from the screenshot" in text
    assert notices.no_accessibility("tk") == notices.NO_ACCESSIBILITY


def test_program_ids_pick_the_entry_started_without_options() -> None:
    pad = inv.DesktopApp("org.xfce.mousepad", "Mousepad", "mousepad", "/usr/bin/mousepad")
    prefs = inv.DesktopApp("org.xfce.mousepad-settings", "Settings", "mousepad", "/usr/bin/mousepad", plain=False)
    ids = inv.program_ids([prefs, pad, WRITER, CALC, START])
    assert ids["/usr/bin/mousepad"] == "org.xfce.mousepad"
    assert ids["soffice.bin"] == "libreoffice-startcenter"
    assert inv.program_ids([WRITER, CALC])["soffice.bin"] == "libreoffice"  # no plain one: the shared command
    assert inv.display_name([WRITER, CALC, START], "libreoffice-startcenter", [("libreoffice-calc", "x")]) == (
        "LibreOffice Calc"
    )
    assert inv.display_name([WRITER, CALC, START], "libreoffice-startcenter", []) == "LibreOffice"


def test_list_apps_keeps_installed_apps_used_within_14_days(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    xbel = tmp_path / "recently-used.xbel"
    xbel.write_text(
        '<?xml version="1.0"?>\n'
        '<xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks">\n'
        ' <bookmark href="file:///a.txt"><info><metadata><bookmark:applications>\n'
        '  <bookmark:application name="Mousepad" exec="&apos;mousepad %u&apos;" modified="2026-11-20T23:59:00Z" count="3"/>\n'
        '  <bookmark:application name="Galculator" exec="galculator" modified="2026-11-17T12:00:00Z" count="1"/>\n'
        '  <bookmark:application name="gedit" exec="gedit %U" modified="2026-11-29T08:00:00Z" count="2"/>\n'
        " </bookmark:applications></metadata></info></bookmark>\n"
        "</xbel>\n"
    )
    apps = [
        inv.DesktopApp("org.xfce.mousepad", "Mousepad", "mousepad", None),
        inv.DesktopApp("galculator", "Galculator", "galculator", None),
        inv.DesktopApp("org.gnome.gedit", "gedit", "gedit", None),
        inv.DesktopApp("never", "Never Used", "never", None),
    ]
    usage = inv.recent_usage(apps, xbel)
    assert usage["org.xfce.mousepad"].count == 3
    # 2026-12-02 10:00: the window starts at the local midnight 14 days before, Nov 18 00:00
    now = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
    assert inv.recent_since(now) == datetime(2026, 11, 18, tzinfo=UTC)
    running = [inv.RunningProcess(ProcessIdentity(5, "galculator", "/usr/bin/galculator", 1.0), "Galculator")]
    rows = [e.to_json() for e in inv.merge(running, apps, usage, now=now)]
    assert [r["id"] for r in rows] == ["galculator", "org.gnome.gedit", "org.xfce.mousepad"]
    assert rows[0]["isRunning"] is True and rows[0]["useCount"] == 1  # running, used before the window: listed first
    assert rows[1] == {
        "id": "org.gnome.gedit", "displayName": "gedit", "isRunning": False,
        "lastUsedDate": "2026-11-29T08:00:00Z", "useCount": 2,
    }  # fmt: skip
    # Mousepad's last use (Nov 20 23:59) is inside until Dec 4 ends; two weeks later nothing is
    later = [e.id for e in inv.merge([], apps, usage, now=datetime(2026, 12, 4, 23, 59, tzinfo=UTC))]
    assert later == ["org.gnome.gedit", "org.xfce.mousepad"]
    later = [e.id for e in inv.merge([], apps, usage, now=datetime(2026, 12, 5, 0, 1, tzinfo=UTC))]
    assert later == ["org.gnome.gedit"]
    assert inv.merge([], apps, usage, now=datetime(2026, 12, 20, tzinfo=UTC)) == []


def test_an_app_without_accessibility_gets_one_screenshot_notice_not_the_shell_advice() -> None:
    from deskhand.core.axtree import notices  # noqa: PLC0415

    facts = notices.Facts(lines=["App=x (pid 1)", 'Window: "x", App: x.'], accessible=False, covered=True)
    assert notices.notices(facts) == [notices.NO_ACCESSIBILITY, notices.COVERED]
    assert notices.notices(notices.Facts(lines=[]))[0] == notices.SHELL_TREE_ADVICE


@pytest.mark.parametrize(
    ("toolkit", "accessible", "fix"),
    [
        ("gtk3", True, "NO_AT_BRIDGE=1"),
        ("gtk4", True, "GTK_A11Y=none"),
        ("qt5", True, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"),
        ("chromium", True, "IsEnabled=true"),
        ("libreoffice", True, "SAL_USE_VCLPLUGIN=gtk3"),
        ("tk", False, None),
        ("sdl2", False, None),
        ("xaw", False, None),
        (None, False, None),
    ],
)
def test_which_toolkits_have_accessibility_and_the_fix_for_each(
    toolkit: str | None, accessible: bool, fix: str | None
) -> None:
    from deskhand.core.axtree import notices  # noqa: PLC0415

    assert notices.has_accessibility(toolkit) is accessible
    text = notices.accessibility_off("App", 7, toolkit)
    assert text.startswith("App (pid 7) is not on the accessibility bus")
    if fix is not None:
        assert fix in text
