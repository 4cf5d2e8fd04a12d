"""deskhand benchmarks: each ``bench/bench_*.py`` module has a ``main()``; ``python -m bench`` runs them all."""
