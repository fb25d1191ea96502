"""RailX paper Fig. 15 (§6.4), analytic: all-reduce time of the 1D-ring, 2D-torus (2D-ring) and
hierarchical algorithms on a 4x4-mesh RailX torus with one port per chip edge (n = 1; four ports
per chip), 100 GB/s and 300 ns per external hop, 400 GB/s and 10 ns per mesh hop, from 16 to
65,536 chips and 1 KB to 1 GB.

Writes docs/figures/fig15.csv, fig15.json and fig15.png and prints the Markdown table recorded in
docs/reproductions.md, plus the checks of the paper's claims (the hierarchical algorithm is the
fastest everywhere; its advantage is largest at small sizes and large scale).

    PYTHONPATH=python python3 benchmarks/fig15.py [--out docs/figures]
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from railx.collectives import RailxParams, estimate

ALGOS = {"1D-ring": "bidir-ring", "2D-torus": "2d-ring", "hierarchical": "hierarchical"}
GRIDS = [1, 2, 4, 8, 16, 32, 64]  # p x p nodes of 16 chips: 16 .. 65,536 chips
SIZES = [1 << e for e in range(10, 31, 2)]  # 1 KB .. 1 GB, x4 steps


def params(p: int) -> RailxParams:
    return RailxParams(m=4, n=1, p=p, q=p, port_bw_Bps=100e9, intra_bw_Bps=400e9, alpha_out_s=300e-9, alpha_in_s=10e-9)


def rows() -> list[dict[str, float | int | str]]:
    out = []
    for p in GRIDS:
        sys = params(p)
        for size in SIZES:
            for label, algo in ALGOS.items():
                e = estimate("allreduce", algo, size, sys)
                out.append({"chips": sys.chips, "size_bytes": size, "algorithm": label, "algo": algo,
                            "time_s": e.time_s, "busbw_Bps": e.busbw_Bps})
    return out


def _fmt_size(size: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size // scale} {unit}"
    return f"{size} B"


def table(data: list[dict]) -> str:
    """Times in microseconds, with the speed-up of hierarchical over the better of the others."""
    by = {(r["chips"], r["size_bytes"], r["algorithm"]): r["time_s"] for r in data}
    lines = ["| chips | size | 1D-ring us | 2D-torus us | hierarchical us | speed-up vs best other |",
             "| --- | --- | --- | --- | --- | --- |"]
    for p in GRIDS:
        chips = params(p).chips
        for size in (1 << 10, 1 << 20, 1 << 30):
            t = {a: by[(chips, size, a)] for a in ALGOS}
            best_other = min(t["1D-ring"], t["2D-torus"])
            lines.append(f"| {chips:,} | {_fmt_size(size)} | {t['1D-ring'] * 1e6:,.2f} | {t['2D-torus'] * 1e6:,.2f} | "
                         f"{t['hierarchical'] * 1e6:,.2f} | {best_other / t['hierarchical']:.2f}x |")
    return "\n".join(lines)


def claims(data: list[dict]) -> list[str]:
    by = {(r["chips"], r["size_bytes"], r["algorithm"]): r["time_s"] for r in data}
    points = sorted({(r["chips"], r["size_bytes"]) for r in data})
    gap = {pt: min(by[(*pt, "1D-ring")], by[(*pt, "2D-torus")]) / by[(*pt, "hierarchical")] for pt in points}
    tied = [pt for pt, g in gap.items() if abs(g - 1) < 1e-9]
    fastest = all(g > 1 - 1e-9 for g in gap.values())
    best = max(gap, key=gap.get)
    by_scale = {chips: max(g for (c, _), g in gap.items() if c == chips) for chips, _ in points}
    return [
        f"hierarchical fastest or tied at every point: {fastest}; tied at {len(tied)} points, all on one node "
        f"({sorted({c for c, _ in tied})} chips: there both are the same mesh ring): {all(c == 16 for c, _ in tied)}",
        f"largest speed-up {gap[best]:.2f}x at {best[0]:,} chips, {_fmt_size(best[1])}",
        "largest speed-up per scale: " + ", ".join(f"{c:,}: {g:.2f}x" for c, g in sorted(by_scale.items())),
    ]


def plot(data: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [16, 1024, 65536]
    fig, axes = plt.subplots(1, len(shown), figsize=(15, 4.5), sharey=True)
    for ax, chips in zip(axes, shown):
        for label in ALGOS:
            pts = [(r["size_bytes"], r["time_s"]) for r in data if r["chips"] == chips and r["algorithm"] == label]
            ax.loglog([s for s, _ in pts], [t for _, t in pts], marker="o", label=label)
        ax.set_title(f"{chips:,} chips")
        ax.set_xlabel("all-reduce size (bytes)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("time (s)")
    axes[0].legend()
    fig.suptitle("RailX Fig. 15 (analytic): all-reduce time, m=4, n=1, 100 GB/s 300 ns external, 400 GB/s 10 ns mesh")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/figures"), help="directory for fig15.csv/json/png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    data = rows()
    with open(args.out / "fig15.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(data[0]))
        writer.writeheader()
        writer.writerows(data)
    (args.out / "fig15.json").write_text(json.dumps(data, indent=1) + "\n")
    plot(data, args.out / "fig15.png")
    print(table(data))
    print()
    for line in claims(data):
        print(line)


if __name__ == "__main__":
    main()
