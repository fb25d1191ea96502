"""Benchmark and reproduction: Rail-only's all-to-all forwarding slow-down (paper 002 §IV-B, eq. 2-3:
8.2% on DGX A100, 11.2% on DGX H100) from the platform presets, analytically and simulated (the
`two-step` schedule on the Rail-only peer against `direct` on the rail-optimised one, flow level
at 16 HB domains, flit level at 4), and the two figures of the paper's text that Table II does not
give (docs/reproductions.md, "Rail-only"). Prints the figures and its run time. Not a test: run
`python benchmarks/railonly.py [--domains 16] [--flit-domains 4] [--plot docs/figures/railonly_slowdown.png]`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from railx.collectives.commands import collective_report
from railx.collectives.railonly import PAPER_SLOWDOWN, forwarding_slowdown, slowdown_rows
from railx.cost.railonly import clos_30k_anchor, switch_ratio
from railx.platforms import PLATFORMS
from railx.progress import live_progress
from railx.systems import System


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:6.2f}%"


def platforms() -> None:
    print("platform      K    HB GB/s  NIC Gb/s  C_S/C_F  eq.3/eq.2-1 at y = 8, 16, 1e6")
    for p in PLATFORMS.values():
        exact = [forwarding_slowdown(p.gpus_per_domain, y, p.hb_Bps, p.nic_Bps) for y in (8, 16, 10**6)]
        print(
            f"{p.name:<12} {p.gpus_per_domain:>4} {p.hb_Bps / 1e9:9.0f} {p.nic_Bps * 8 / 1e9:9.0f}"
            f"  {_pct(p.nic_Bps / p.hb_Bps)}  " + " ".join(_pct(e) for e in exact)
        )


def slowdowns(domains: int, flit_domains: int) -> None:
    print(f"\nslow-down of Rail-only's two-step all-to-all over rail-optimised direct (1 MiB per pair, y = {domains})")
    print("platform      paper   C_S/C_F  eq.3/eq.2  flow     flow: direct on Rail-only")
    for r in slowdown_rows(domains=domains, fidelity="flow"):
        print(
            f"{r['platform']:<12} {_pct(r['paper'])} {_pct(r['approx'])} {_pct(r['analytic'])}"
            f"  {_pct(r['simulated'])}  {_pct(r['simulated_direct'])}"
        )
    print(f"\nflit level, y = {flit_domains}, 32 KiB per pair (cycle = 256 B over the NIC rate)")
    print("platform      eq.3/eq.2  flow     flit     flit: direct on Rail-only")
    flow = {r["platform"]: r for r in slowdown_rows(domains=flit_domains, fidelity="flow", pair_bytes=32 << 10)}
    for r in slowdown_rows(domains=flit_domains, fidelity="flit", pair_bytes=32 << 10):
        print(
            f"{r['platform']:<12} {_pct(r['analytic'])}  {_pct(flow[r['platform']]['simulated'])}"
            f"  {_pct(r['simulated'])}  {_pct(r['simulated_direct'])}"
        )
    # The flit level's input-queued switches: the same direct all-to-all of 32 chips on one
    # 64-port switch (a 1-tier fat-tree) at flow and flit level.
    one_switch = System("ft1", "one switch", peer={"family": "fat-tree", "radix": 64, "chips": 32})
    size = 32 * (32 << 10)
    t = {f: collective_report(one_switch, "all-to-all", "direct", size, f)["time_s"] for f in ("flow", "flit")}
    print(f"one 64-port switch, 32 chips, direct all-to-all: flit / flow = {t['flit'] / t['flow']:.3f}")


def text_figures() -> None:
    r = switch_ratio()
    print(
        f"\nradix 64, {r['gpus']:,} GPUs: Rail-only {r['railonly_switches']:,} / rail-optimised {r['sota_switches']:,}"
        f" switches = {r['ratio']:.2f} (closed form (2*2-1)/(2*3-1) = {r['closed_form']:.2f}; paper: 3/4)"
    )
    a = clos_30k_anchor()
    low, high = a["usd_per_w_range"]
    print(
        f"{a['gpus']:,} GPUs, {a['tiers']}-tier full-bisection Clos at Table II prices: ${a['cost_usd'] / 1e6:.1f}M,"
        f" {a['power_w'] / 1e6:.2f} MW (paper: $200M, ~4.6 MW); every component costs ${low:.1f}-{high:.1f} per W,"
        f" the paper's pair ${a['paper_usd_per_w']:.1f} per W; gap ${a['missing_usd_per_gpu']:,.0f} per GPU"
    )


def plot(path: Path, domains: int) -> None:
    """Eq. 3 / eq. 2 - 1 against the number of HB domains per platform, C_S / C_F dotted, the
    paper's values (at y = 8) and the flow level at `domains` as points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ys = [2**i for i in range(1, 11)]
    flow = {r["platform"]: r["simulated"] for r in slowdown_rows(domains=domains, fidelity="flow")}
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for p in PLATFORMS.values():
        (line,) = ax.semilogx(
            ys, [100 * forwarding_slowdown(p.gpus_per_domain, y, p.hb_Bps, p.nic_Bps) for y in ys], label=p.label
        )
        ax.axhline(100 * p.nic_Bps / p.hb_Bps, color=line.get_color(), ls=":", lw=0.8)
        if p.name in flow:
            ax.plot([domains], [100 * flow[p.name]], "o", color=line.get_color())
    # The paper's values approximate C_S / C_F, exact where y (x-1) = x (y-1): at y = x = 8.
    ax.plot([8] * len(PAPER_SLOWDOWN), [100 * v for v in PAPER_SLOWDOWN.values()], "x", color="black")
    ax.set_xlabel("HB domains y")
    ax.set_ylabel("two-step over direct all-to-all - 1 (%)")
    ax.set_title("Rail-only forwarding slow-down (eq. 3 / eq. 2); o flow, x paper", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--domains", type=int, default=16, help="HB domains at the flow level (default 16)")
    parser.add_argument("--flit-domains", type=int, default=4, help="HB domains at the flit level (default 4)")
    parser.add_argument("--plot", type=Path, help="also draw the slow-down against the number of domains (PNG)")
    args = parser.parse_args()
    start = time.perf_counter()
    platforms()
    with live_progress("flow- and flit-level slow-downs", quiet=False):  # the elapsed time, on a terminal
        slowdowns(args.domains, args.flit_domains)
    text_figures()
    if args.plot is not None:
        plot(args.plot, args.domains)
    print(f"\nrun time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
