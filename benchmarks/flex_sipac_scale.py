"""Flex-SiPAC paper (003) Fig. 9: network size vs switch radix for Flex-SiPAC with 2 and 3
levels (r^L CUs on r-port WSS), TPUv4 (4x4x4 cubes on OCS: 32R), the DGX-H100 SuperPOD
(8-GPU servers under one top NVSwitch layer: 8R) and SiP-OCS (N GPUs on OCS of radix N: R), from
the rows `railx scale` prints; plus Flex-SiPAC's bill of materials (counted, no graph) at the
sizes the paper names.

Prints the Markdown tables recorded in docs/reproductions.md, the paper's checks (radix 16 and
3 levels give 4,096 CUs; 2 levels pass TPUv4 after r = 32) and the time taken; writes
docs/figures/fig9_flex_sipac.png.

    PYTHONPATH=python python3 benchmarks/flex_sipac_scale.py [--out docs/figures]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from railx.cost import plot_scalability
from railx.cost.scale import FIG9_CURVES as CURVES
from railx.cost.scale import FIG9_RADICES as RADICES
from railx.cost.scale import PAPER_FIG9, fig9_rows
from railx.systems import System

BOM_SIZES = ((8, 3), (16, 2), (16, 3))  # the paper's evaluation system, and its §4.C examples


def bom_row(radix: int, levels: int) -> dict[str, object]:
    peer = {"family": "sipac", "radix": radix, "levels": levels, "wavelengths": 60, "wavelength_rate_Bps": 4e9}
    return System(f"sipac-{radix}-{levels}", "", peer=peer).bom()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/figures"))
    args = parser.parse_args()
    start = time.perf_counter()
    rows = fig9_rows()
    size = {(r["family"], r["radix"]): r["max_chips"] for r in rows}
    print("| curve | " + " | ".join(f"R = {r}" for r in RADICES) + " |")
    print("| --- |" + " ---: |" * len(RADICES))
    for label, formula in CURVES.values():
        print(f"| {label} ({formula}) | " + " | ".join(f"{size[(label, r)]:,}" for r in RADICES) + " |")
    two, three, tpu = "Flex-SiPAC, 2 levels", "Flex-SiPAC, 3 levels", "TPUv4"
    print(f"\nradix 16, 3 levels: {size[(three, 16)]:,} CUs (paper: {PAPER_FIG9['radix16_levels3_cus']:,})")
    print(f"radix 16, 2 levels: {size[(two, 16)]:,} CUs (paper: {PAPER_FIG9['radix16_levels2_cus']:,})")
    beyond = [r for r in RADICES if size[(two, r)] > size[(tpu, r)]]  # type: ignore[operator]
    print(
        f"2 levels above TPUv4 from R = {beyond[0]} (equal at R = 32: {size[(two, 32)]:,}; paper: after r = {PAPER_FIG9['levels2_beat_tpuv4_after_radix']})"
    )
    print("\n| SiPAC(r, L) | CUs | WSS (radix r) | WSS per level | comb transceivers | fibre links | bisection % |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for radix, levels in BOM_SIZES:
        bom = bom_row(radix, levels)
        wss = bom["wss"][0]["count"]  # type: ignore[index]
        print(
            f"| ({radix}, {levels}) | {bom['chips']:,} | {wss:,} | {wss // levels:,} | {bom['comb_transceivers']:,} "
            f"| {bom['chip_wss_links']:,} | {100 * bom['global']['bisection_frac']:.1f} |"  # type: ignore[index]
        )
    path = plot_scalability(rows, args.out / "fig9_flex_sipac.png", "Network size vs switch radix (paper 003 Fig. 9)")
    print(f"\nwrote {path} in {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
