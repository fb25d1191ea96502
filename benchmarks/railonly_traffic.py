"""Rail-only paper §III (Figs. 2-5): the GPU-pair traffic of the shipped jobs, their volume and pair
shares beside the paper's numbers, and the heatmaps in docs/figures/.

    python3 benchmarks/railonly_traffic.py [--out DIR]

Builds the traffic matrix of every shipped job (Megatron-LM GPT-146B/310B/530B/1T on DGX A100,
GPT-1T on 16 DGX GH200 with hierarchical all-reduce, MoE-1.3B on 16 DGX A100), prints the
comparison table, writes railonly_fig2.png (shares) and the heatmaps (railonly_fig3a/3b/4b/4c/5b),
and prints the wall time of each matrix and of the whole run.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from railx.progress import tracked
from railx.workload.jobs import load_job
from railx.workload.matrix import TrafficMatrix, plot_heatmap, traffic_matrix

ROOT = Path(__file__).resolve().parents[1]
MEGATRON = ("megatron-gpt-146b", "megatron-gpt-310b", "megatron-gpt-530b", "megatron-gpt-1t")
HEATMAPS = (  # (job, GPUs shown, file, title): the paper's panels
    ("megatron-gpt-1t", 48, "railonly_fig3a.png", "Megatron GPT-1T: GPUs 1-48 (one stage)"),
    ("megatron-gpt-1t", 192, "railonly_fig3b.png", "Megatron GPT-1T: GPUs 1-192 (four stages)"),
    ("gh200-gpt-1t", 256, "railonly_fig4b.png", "GH200 GPT-1T: GPUs 1-256 (one HB domain)"),
    ("gh200-gpt-1t", 1024, "railonly_fig4c.png", "GH200 GPT-1T: GPUs 1-1024 (two stages)"),
    ("deepspeed-moe-1.3b", 128, "railonly_fig5b.png", "MoE-1.3B, uniform routing: 128 GPUs"),
)


def build(key: str, ring: str = "bidirectional") -> tuple[TrafficMatrix, float]:
    job = load_job(key)
    start = time.perf_counter()
    tm = traffic_matrix(job.spec(), job.parallelism(), job.placement(), job.all_reduce.value, ring)  # type: ignore[arg-type]
    return tm, time.perf_counter() - start


def by_type(shares: dict[str, float], kind: str) -> float:
    """A type's share over both domains."""
    return shares.get(f"{kind} (HB)", 0.0) + shares.get(f"{kind} (NIC)", 0.0)


def plot_fig2(matrices: dict[str, TrafficMatrix], path: Path) -> None:
    names = [k.removeprefix("megatron-gpt-").upper() for k in MEGATRON]
    fig, (vol, pairs) = plt.subplots(1, 2, figsize=(8, 3.2), dpi=100)
    bottom = [0.0] * len(MEGATRON)
    for kind, color in (("DP", "tab:blue"), ("TP", "tab:orange"), ("PP", "tab:green")):
        values = [100 * by_type(matrices[k].volume_shares(), kind) for k in MEGATRON]
        vol.bar(names, values, bottom=bottom, color=color, label=kind)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    vol.set_ylabel("share of bytes (%)")
    vol.set_title("(a) traffic volume by type", fontsize=9)
    vol.legend(fontsize=8)
    width = 0.25
    for i, kind in enumerate(("TP", "DP", "PP")):
        values = [100 * matrices[k].pair_shares().get(kind, 0.0) for k in MEGATRON]
        pairs.bar([x + (i - 1) * width for x in range(len(MEGATRON))], values, width, label=kind)
    none = [f"{n}\nnone {100 * matrices[k].pair_shares()['none']:.2f}%" for n, k in zip(names, MEGATRON, strict=True)]
    pairs.set_xticks(range(len(MEGATRON)), none, fontsize=8)
    pairs.set_ylabel("GPU pairs carrying it (%)")
    pairs.set_title("(b) GPU pairs carrying each type", fontsize=9)
    pairs.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures", help="directory for the PNGs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    total_start = time.perf_counter()
    matrices: dict[str, TrafficMatrix] = {}
    print(
        f"{'job':<20} {'GPUs':>5} {'build s':>8}  volume shares (%)  |  pairs with no traffic (%)  |  largest pair GB (HB / NIC)"
    )
    for key in tracked((*MEGATRON, "gh200-gpt-1t", "deepspeed-moe-1.3b"), "traffic matrices", "jobs"):
        tm, seconds = build(key)
        matrices[key] = tm
        shares = ", ".join(f"{k} {100 * v:.3g}" for k, v in tm.volume_shares().items())
        top = tm.max_pair_bytes()
        print(
            f"{key:<20} {tm.placement.gpus:>5} {seconds:>8.3f}  {shares}  |  {100 * tm.pair_shares()['none']:.3f}  |  "
            f"{top['HB'] / 1e9:.4g} / {top['NIC'] / 1e9:.4g}"
        )
    one_way, _ = build("megatron-gpt-1t", "unidirectional")
    gh = matrices["gh200-gpt-1t"].volume_shares()
    moe = matrices["deepspeed-moe-1.3b"].volume_shares()
    print("\npaper vs railx")
    print(
        f"  Fig. 2b pairs with no traffic > 99%: {min(100 * matrices[k].pair_shares()['none'] for k in MEGATRON):.2f}% (minimum of the four)"
    )
    print(
        f"  Fig. 2b pairs with TP < 0.04% (GPT-1T): {100 * matrices['megatron-gpt-1t'].pair_shares()['TP']:.4f}% two-way ring, "
        f"{100 * one_way.pair_shares()['TP']:.4f}% one-way ring"
    )
    print(
        f"  Fig. 2a TP > 75% of bytes: {min(100 * by_type(matrices[k].volume_shares(), 'TP') for k in MEGATRON):.1f}% (minimum)"
    )
    top = matrices["megatron-gpt-1t"].max_pair_bytes()
    print(f"  Fig. 3 ~300 GB in an HB domain, ~6 GB across: {top['HB'] / 1e9:.0f} GB, {top['NIC'] / 1e9:.2f} GB")
    print(f"  Fig. 4 98% of the all-reduce in the HB domain: {100 * gh['DP (HB)'] / by_type(gh, 'DP'):.1f}%")
    print(f"  Fig. 4 DP (NIC) 0.8% of all bytes: {100 * gh['DP (NIC)']:.2f}%")
    print(f"  Fig. 5 all-to-all 27% of bytes: {100 * by_type(moe, 'EP'):.1f}%")
    start = time.perf_counter()
    plot_fig2(matrices, args.out / "railonly_fig2.png")
    for key, gpus, name, title in HEATMAPS:
        plot_heatmap(matrices[key], gpus, args.out / name, title)
    print(f"\nfigures written to {args.out} in {time.perf_counter() - start:.2f} s")
    print(f"total {time.perf_counter() - total_start:.2f} s")


if __name__ == "__main__":
    main()
