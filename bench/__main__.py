"""Run every ``bench/bench_*.py`` module's ``main()`` in name order (``make bench``).

``python -m bench [NAME ...]`` runs only the named modules (``desktop`` for ``bench_desktop.py``).
A module that fails is reported and the others still run; the exit code is 1 if any failed.
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path


def discover() -> list[str]:
    return sorted(p.stem for p in Path(__file__).resolve().parent.glob("bench_*.py"))


def main(argv: list[str] | None = None) -> int:
    wanted = argv if argv is not None else sys.argv[1:]
    names = [n for n in discover() if not wanted or n.removeprefix("bench_") in wanted or n in wanted]
    if not names:
        print("no benchmark modules (bench/bench_*.py) found")
        return 0
    failed = []
    for name in names:
        print(f"== {name}", flush=True)
        t0 = time.monotonic()
        try:
            result = importlib.import_module(f"bench.{name}").main()
        except Exception:
            traceback.print_exc()
            failed.append(name)
            continue
        if isinstance(result, int) and result != 0:
            failed.append(name)
        print(f"== {name} done in {time.monotonic() - t0:.1f} s", flush=True)
    if failed:
        print(f"failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
