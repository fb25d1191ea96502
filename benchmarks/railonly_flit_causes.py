"""Benchmark: what the flit-level time of Rail-only's and the rail-optimised network's all-to-alls
depends on (docs/reproductions.md, "Rail-only", the flit level). 4 HB domains of 8 GPUs, 32 KiB
per pair (the flit level of benchmarks/railonly.py), and the same direct all-to-all of 32 chips on
one 64-port switch; each schedule's flit time over its flow time with the simulator settings the
flit level derives from the system (`flit_config`) and with one of them changed: virtual channels
per routing class, VC buffer depth, packet size, crossbar speedup, and the HB domain as a full
mesh instead of a switch. Not a test: run `python benchmarks/railonly_flit_causes.py`.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from railx._core import flit_collective
from railx.collectives.commands import collective_report
from railx.platforms import platform_peer
from railx.progress import tracked
from railx.systems import System, core_of

PAIR_BYTES = 32 << 10
CHIPS = 32

# (label, settings replacing the derived ones, FlitConfig fields; None: the derived ones).
# "buffer_scale" is not a field: the derived VC buffer depth (the credit round trip) times it.
SETTINGS: list[tuple[str, dict[str, Any] | None]] = [
    ("derived", None),
    ("1 VC", {"vcs_per_class": 1}),
    ("32 VCs", {"vcs_per_class": 32}),
    ("buffer x4", {"buffer_scale": 4}),
    ("packet 1", {"packet_flits": 1}),
    ("packet 16", {"packet_flits": 16}),
    ("speedup 2", {"switch_speedup": 2}),
]


def _systems() -> list[tuple[str, System, str]]:
    out = [
        ("one 64-port switch", System("ft1", "ft1", peer={"family": "fat-tree", "radix": 64, "chips": CHIPS}), "direct")
    ]
    for plat in ("dgx-a100", "dgx-h100"):
        for hb in ("switch", "full-mesh"):
            for network, algo in (("rail-optimised", "direct"), ("rail-only", "two-step"), ("rail-only", "direct")):
                peer = platform_peer(plat, CHIPS // 8, network) | {"hb_model": hb}
                out.append((f"{plat} {network} (HB {hb})", System("s", "s", peer=peer), algo))
    return out


def _flit_s(system: System, algo: str, change: dict[str, Any] | None) -> float:
    run = _run(system, algo)
    if change is not None:
        if "buffer_scale" in change:
            derived = json.loads(run["settings"])["buffer_flits"]
            change = {"buffer_flits": derived * change["buffer_scale"]}
        run = _run(system, algo, json.dumps(change))
    return float(run["time_s"])


def _run(system: System, algo: str, settings_json: str | None = None) -> Any:
    return flit_collective(core_of(system), "all-to-all", algo, CHIPS * PAIR_BYTES, settings_json=settings_json)


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help says what it measures
    start = time.perf_counter()
    print(f"flit / flow of the all-to-all, {CHIPS} GPUs, {PAIR_BYTES >> 10} KiB per pair")
    print(f"{'system':<38} {'algo':<9} " + " ".join(f"{label:>10}" for label, _ in SETTINGS))
    for label, system, algo in tracked(_systems(), "flit runs", "systems"):
        flow = collective_report(system, "all-to-all", algo, CHIPS * PAIR_BYTES, "flow")["time_s"]
        ratios = [_flit_s(system, algo, change) / flow for _, change in SETTINGS]
        print(f"{label:<38} {algo:<9} " + " ".join(f"{r:10.3f}" for r in ratios), flush=True)
    print(f"\nrun time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
