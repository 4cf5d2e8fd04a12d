"""Run an app that refuses root (VLC) from root, on the desktop's own buses, with no second user
and no patched binary: ``python _not_root.py SESSION_ADDRESS A11Y_ADDRESS -- ARGV...``.

The app runs in a user namespace where it is uid 1000, mapped to root outside, so its files, X
cookie and sockets are root's as before, while ``geteuid()`` says 1000. D-Bus would refuse it: its
EXTERNAL authentication claims uid 1000 while the bus sees root. So this process (whose pid the app
keeps, as it execs the app) first connects to each bus socket itself (the bus records this pid, so
the app is found by its pid on the accessibility bus), hands those connections to a relay child,
and in a private mount namespace puts the relay's sockets over the bus sockets' paths. The relay
passes bytes unchanged, except the claimed uid in ``AUTH EXTERNAL``, which it sets to its own (the
uid the bus sees), and ``NEGOTIATE_UNIX_FD``, which it declines (it cannot pass descriptors).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import sys
import tempfile
import threading
from pathlib import Path

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
INNER_UID = 1000
#: Connections made ahead per bus (Qt's session and accessibility connections, VLC's MPRIS and
#: screensaver ones); a later one is made by the relay itself.
AHEAD = 6

libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _path(address: str) -> str:
    for part in address.split(";", maxsplit=1)[0].split(","):
        if part.startswith("unix:path="):
            return part[len("unix:path=") :]
    raise SystemExit(f"not a unix:path= address: {address}")


def _auth(client: socket.socket, upstream: socket.socket) -> bytes:
    """Relay the SASL exchange line by line until BEGIN; what came after it is returned."""
    buf = b""
    first = True
    while True:
        chunk = client.recv(4096)
        if not chunk:
            raise ConnectionError("client left during authentication")
        buf += chunk
        if first and buf:
            upstream.sendall(buf[:1])  # the credentials byte
            buf, first = buf[1:], False
        while b"\r\n" in buf:
            line, buf = buf.split(b"\r\n", 1)
            if line.startswith(b"AUTH EXTERNAL"):
                line = b"AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode()
            if line == b"NEGOTIATE_UNIX_FD":
                client.sendall(b"ERROR\r\n")
                continue
            upstream.sendall(line + b"\r\n")
            if line == b"BEGIN":
                return buf
            if line.startswith((b"AUTH", b"DATA")):
                client.sendall(_line(upstream))


def _line(sock: socket.socket) -> bytes:
    out = b""
    while not out.endswith(b"\r\n"):
        b = sock.recv(1)
        if not b:
            raise ConnectionError("bus closed during authentication")
        out += b
    return out


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def _serve(listener: socket.socket, target: str, ahead: list[socket.socket]) -> None:
    while True:
        client, _ = listener.accept()
        if ahead:
            upstream = ahead.pop(0)
        else:
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(target)

        def run(c: socket.socket = client, u: socket.socket = upstream) -> None:
            try:
                rest = _auth(c, u)
            except OSError:
                c.close()
                u.close()
                return
            if rest:
                u.sendall(rest)
            threading.Thread(target=_pipe, args=(u, c), daemon=True).start()
            _pipe(c, u)

        threading.Thread(target=run, daemon=True).start()


def main() -> None:
    sep = sys.argv.index("--")
    targets = [_path(a) for a in sys.argv[1:sep]]
    argv = sys.argv[sep + 1 :]
    folder = Path(tempfile.mkdtemp(prefix="not-root-"))
    listeners, pools = [], []
    for i, target in enumerate(targets):
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(folder / f"bus{i}"))
        listener.listen(16)
        listeners.append(listener)
        pool = []
        for _ in range(AHEAD):
            s = socket.socket(socket.AF_UNIX)
            s.connect(target)  # the bus records this process's pid: the app's, once it execs
            pool.append(s)
        pools.append(pool)
    if os.fork() == 0:  # the relay
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        threads = [
            threading.Thread(target=_serve, args=(lst, t, p), daemon=True)
            for lst, t, p in zip(listeners, targets, pools, strict=True)
        ]
        for t in threads:
            t.start()
        signal.pause()
        return
    for s in [*listeners, *(s for p in pools for s in p)]:
        s.close()
    outer_uid, outer_gid = os.getuid(), os.getgid()
    _check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare")
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{INNER_UID} {outer_uid} 1")
    Path("/proc/self/gid_map").write_text(f"{INNER_UID} {outer_gid} 1")
    _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    for i, target in enumerate(targets):
        _check(libc.mount(str(folder / f"bus{i}").encode(), target.encode(), None, MS_BIND, None), f"bind {target}")
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main()
