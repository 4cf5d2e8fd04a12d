"""The pool's pure parts: how the size is spread over hosts, and the spec's validation."""

from __future__ import annotations

import pytest

pytest.importorskip("ray")

from deskhand.fleet.controller import share
from deskhand.fleet.spec import PoolSpec


@pytest.mark.parametrize(
    ("size", "hosts", "per_node", "expected"),
    [(4, 2, None, [2, 2]), (5, 2, None, [3, 2]), (4, 1, None, [4]), (4, 3, 1, [1, 1, 1]), (3, 0, None, [])],
)
def test_share(size: int, hosts: int, per_node: int | None, expected: list[int]) -> None:
    assert share(size, hosts, per_node) == expected


def test_spec_takes_argvs_and_words() -> None:
    spec = PoolSpec.of("p", 2, apps=["xeyes", ["mousepad", "--disable-server"]], screen=(800, 600), per_node=None,
                       lease_ttl_s=60)  # fmt: skip
    assert spec.apps == (("xeyes",), ("mousepad", "--disable-server"))
    assert spec.host_name("abc") == "deskhand:p:host:abc"


@pytest.mark.parametrize(
    "bad",
    [{"size": 0}, {"per_node": 0}, {"screen": (10, 10)}, {"lease_ttl_s": 0}, {"apps": [[]]}],
)
def test_spec_refuses(bad: dict[str, object]) -> None:
    args: dict[str, object] = {"size": 1, "apps": (), "screen": (800, 600), "per_node": None, "lease_ttl_s": 1.0}
    args.update(bad)
    size = args.pop("size")
    with pytest.raises(ValueError):
        PoolSpec.of("p", size, **args)  # type: ignore[arg-type]
