"""The desktop's environment rules, X authority files and clean spawning, without an X server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from Xlib import error as xlib_error
from Xlib import xauth as xlib_xauth

from deskhand.desktop import _env, _spawn, _xauth
from deskhand.host.policy import default_policy_path


def test_gtk_modules_keeps_what_is_there_and_adds_the_bridge_once() -> None:
    assert _env.gtk_modules(None) == "gail:atk-bridge"
    assert _env.gtk_modules("canberra-gtk-module") == "canberra-gtk-module:gail:atk-bridge"
    assert _env.gtk_modules("atk-bridge:foo") == "atk-bridge:foo:gail"


def test_a11y_env_switches_every_toolkit_on_and_drops_no_at_bridge() -> None:
    env = _env.a11y_env({"NO_AT_BRIDGE": "1", "PATH": "/bin", "QT_ACCESSIBILITY": "0"})
    assert "NO_AT_BRIDGE" not in env
    assert env["PATH"] == "/bin"
    assert env["QT_ACCESSIBILITY"] == "1"
    assert env["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] == "1"
    assert env["ACCESSIBILITY_ENABLED"] == "1"
    assert env["GTK_MODULES"] == "gail:atk-bridge"


def test_exports_quote_values_and_unset_no_at_bridge() -> None:
    text = _env.exports_text({"B": "a b", "A": "x'y"})
    script = text + 'printf "%s|%s|%s" "$A" "$B" "${NO_AT_BRIDGE-unset}"'
    done = subprocess.run(["sh", "-c", script], check=False, env={"NO_AT_BRIDGE": "1"}, capture_output=True, text=True)
    assert done.stdout == "x'y|a b|unset"


@pytest.mark.parametrize(
    "env",
    [
        {"HOME": "/home/u"},
        {"HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg"},
        {"HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "DESKHAND_POLICY": "/p.toml"},
    ],
)
def test_user_policy_path_follows_the_policy_rule(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("XDG_CONFIG_HOME", "DESKHAND_POLICY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _env.user_policy_path(env) == str(default_policy_path())


def test_client_entries_read_back_by_python_xlib(tmp_path: Path) -> None:
    cookie = _xauth.new_cookie()
    path = tmp_path / "Xauthority"
    _xauth.write_private(path, _xauth.client_entries(123, cookie))
    assert path.stat().st_mode & 0o777 == 0o600
    auth = xlib_xauth.Xauthority(str(path))
    import socket  # noqa: PLC0415

    host = socket.gethostname().encode()
    assert auth.get_best_auth(xlib_xauth.FamilyLocal, host, 123) == (b"MIT-MAGIC-COOKIE-1", cookie)
    with pytest.raises(xlib_error.XNoAuthError):
        auth.get_best_auth(xlib_xauth.FamilyLocal, host, 124)


def test_process_authority_holds_each_desktop_and_the_users_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "user-auth"
    user_cookie = _xauth.new_cookie()
    user.write_bytes(_xauth.client_entries(0, user_cookie))
    monkeypatch.setenv("XAUTHORITY", str(user))
    monkeypatch.setattr(_xauth, "_mine", {})  # this process's other desktops (a session fixture) aside
    monkeypatch.setattr(_xauth, "_previous", _xauth._UNSET)
    a, b = _xauth.new_cookie(), _xauth.new_cookie()
    _xauth.register(tmp_path, "a", 301, a)
    _xauth.register(tmp_path, "b", 302, b)
    try:
        merged = Path(os.environ["XAUTHORITY"])
        assert merged == _xauth.process_file(tmp_path)
        auth = xlib_xauth.Xauthority()
        import socket  # noqa: PLC0415

        host = socket.gethostname().encode()
        got = {n: auth.get_best_auth(xlib_xauth.FamilyLocal, host, n)[1] for n in (0, 301, 302)}
        assert got == {0: user_cookie, 301: a, 302: b}
        _xauth.unregister(tmp_path, "a")
        assert os.environ["XAUTHORITY"] == str(merged)
    finally:
        _xauth.unregister(tmp_path, "a")
        _xauth.unregister(tmp_path, "b")
    assert os.environ["XAUTHORITY"] == str(user)
    assert not merged.exists()


_REPORT = "import pathlib; print(pathlib.Path('/proc/self/status').read_text())"


def _status(text: str, field: str) -> int:
    line = next(x for x in text.splitlines() if x.startswith(field + ":"))
    return int(line.split()[1], 16)


def test_spawn_gives_default_signals_an_empty_mask_and_no_stray_descriptors(tmp_path: Path) -> None:
    out = tmp_path / "out"
    stray_r, stray_w = os.pipe()
    os.set_inheritable(stray_w, True)
    old_handler = signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGCHLD})
    try:
        with out.open("wb") as f:
            child = _spawn.spawn([sys.executable, "-c", _REPORT], env=dict(os.environ), stdout=f.fileno())
        assert child.wait(timeout=30) == 0
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        signal.signal(signal.SIGUSR1, old_handler)
        os.close(stray_w)
    text = out.read_text()
    assert _status(text, "SigBlk") == 0
    assert not _status(text, "SigIgn") & (1 << (signal.SIGUSR1 - 1))
    assert os.read(stray_r, 1) == b""  # the child held no copy of the write end
    os.close(stray_r)


def test_spawn_runs_in_a_new_session_in_the_asked_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with out.open("wb") as f:
        child = _spawn.spawn(
            ["sh", "-c", "pwd; ps -o sid= -p $$"], env=dict(os.environ), stdout=f.fileno(), cwd=tmp_path
        )
    assert child.wait(timeout=30) == 0
    cwd, sid = out.read_text().split()
    assert cwd == str(tmp_path)
    assert int(sid) == child.pid
    with pytest.raises(FileNotFoundError):
        _spawn.spawn(["no-such-program-xyz"], env=dict(os.environ))


def test_the_xsettings_manager_serves_gtk2s_modules_in_the_specifications_layout() -> None:
    import struct  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from deskhand.desktop import _xsettings  # noqa: PLC0415

    blob = _xsettings.encode({"Gtk/Modules": "gail:atk-bridge"}, serial=3)
    order = b"\0" if sys.byteorder == "little" else b"\1"
    # byte order, 3 pad, serial, count; then type 1 (string), pad, name length, name padded to 4,
    # the setting's serial, value length, value padded to 4 (XSETTINGS 0.5, "Settings")
    assert blob[:12] == order + b"\0\0\0" + struct.pack("=II", 3, 1)
    assert blob[12:16] == struct.pack("=BxH", 1, 11) and blob[16:28] == b"Gtk/Modules\0"
    assert blob[28:36] == struct.pack("=II", 3, 15) and blob[36:] == b"gail:atk-bridge\0"
    assert _xsettings.SETTINGS == {"Gtk/Modules": "gail:atk-bridge"}
