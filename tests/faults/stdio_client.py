"""A minimal MCP stdio client, run as its own process so a test can SIGKILL it mid-cell.

    python stdio_client.py '<json: serve arguments>' '<js code>'

It starts `deskhand serve` with those arguments as its child (pipes only it holds), initializes,
prints the server's pid, lists nothing else, sends one `js` call, prints ``sent`` and then waits
on its own stdin, never reading the answer: the test kills it while the cell runs.
"""

from __future__ import annotations

import json
import subprocess
import sys

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "doomed", "version": "0"}},
}


def main() -> None:
    serve_args, code = json.loads(sys.argv[1]), sys.argv[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskhand", "serve", *serve_args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    print(proc.pid, flush=True)

    def send(message: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    send(INITIALIZE)
    while json.loads(proc.stdout.readline()).get("id") != 0:
        pass
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    args = {"code": code, "timeout_ms": 60000}
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "js", "arguments": args}})
    print("sent", flush=True)
    sys.stdin.read()  # until the test kills us


if __name__ == "__main__":
    main()
