"""Rail-only paper §V (Figs. 7-10): the iteration-time model's HFU against published measurements,
and the iteration time of GPT training on Rail-only clusters of H100 GPUs against HB-domain size,
HB and NIC bandwidth, and global batch.

    python3 benchmarks/railonly_iteration.py [--out DIR] [--choices railx|calculon]

Prints the Fig. 7 table (railx's HFU beside the measured one, and the paper's model's errors) and
the headline numbers of Figs. 8-10 beside the paper's, writes railonly_fig7.png ... fig10.png to
docs/figures/ (or DIR), and prints the wall time of each part and of the whole run. With
`--choices calculon` the sweeps of Figs. 8-10 use Calculon's execution model
(railx.workload.railonly.sweeps.CALCULON: exposed pipeline sends, its bubble and DP overlap, and
its search over interleavings, micro-batch sizes, recomputation and optimizer sharding; about a
minute) and the figures are written as railonly_fig8_calculon.png ... fig10_calculon.png (Fig. 7
does not change).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from railx.progress import live_progress
from railx.workload.railonly import EFFICIENCY, Point, bandwidth_sweep, batch_sweep, hb_size_sweep, validate_hfu
from railx.workload.railonly.sweeps import (
    CALCULON,
    FIG8_GPUS,
    HB_SIZES,
    PAPER_FIG8_CUT,
    PAPER_FIG8_OVER_IDEAL,
    PAPER_FIG9_HB_CUT,
    PAPER_FIG9_NIC_CUT,
    PAPER_FIG10_RELATIVE,
    RAILX,
    bandwidth_cuts,
    relative_to_ideal,
)

ROOT = Path(__file__).resolve().parents[1]
R = TypeVar("R")


def timed(label: str, fn: Callable[[], R]) -> R:
    """`fn()` under a bar showing its elapsed time (a terminal only); prints the seconds."""
    start = time.perf_counter()
    with live_progress(label, quiet=False):
        out = fn()
    print(f"[{label}: {time.perf_counter() - start:.2f} s]")
    return out


def fig7(out: Path) -> None:
    rows = validate_hfu()
    print(
        f"\nFig. 7: HFU on DGX A100, compute at {EFFICIENCY:.0%} of peak (paper's model: 1.8% off at 1T, 10.8% at 22B)"
    )
    print(
        f"{'case':<13}{'measured':>9}{'railx':>8}{'error':>8}{'MFU meas':>9}{'railx':>7}{'time s':>8}{'meas s':>8}{'implied eff':>12}"
    )
    for r in rows:
        c = r.case
        meas = "-" if c.iteration_s is None else f"{c.iteration_s:.2f}"
        print(
            f"{c.name:<13}{c.hfu_percent:>8.1f}%{100 * r.hfu:>7.1f}%{100 * r.hfu_error:>+7.1f}%"
            f"{c.mfu_percent:>8.1f}%{100 * r.mfu:>6.1f}%{r.time_s:>8.2f}{meas:>8}{r.implied_efficiency:>12.3f}"
        )
    fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
    x = range(len(rows))
    ax.bar([i - 0.2 for i in x], [r.case.hfu_percent for r in rows], 0.4, label="ground truth (Korthikanti et al.)")
    ax.bar([i + 0.2 for i in x], [100 * r.hfu for r in rows], 0.4, label=f"railx ({EFFICIENCY:.0%} of peak)")
    ax.set_xticks(list(x), [r.case.name for r in rows], fontsize=8)
    ax.set_ylabel("HFU (%)")
    ax.legend(fontsize=8)
    ax.set_title("Fig. 7: hardware FLOPs utilisation", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "railonly_fig7.png")
    plt.close(fig)


def fig8(points: list[Point], out: Path, suffix: str = "") -> None:
    t = {(p.model, p.gpus, p.size): p.time_s for p in points}
    print("\nFig. 8: iteration time (s) against HB-domain size K (each the fastest parallelisation)")
    print(f"{'model':<9}{'GPUs':>7}" + "".join(f"{k:>7}" for k in HB_SIZES) + f"{'ideal':>7}{'K=256 vs ideal':>16}")
    for model in ("gpt-1t", "gpt-146b"):
        for n in FIG8_GPUS:
            row = "".join(f"{t[(model, n, k)]:>7.3f}" for k in (*HB_SIZES, n))
            print(f"{model:<9}{n:>7}{row}{t[(model, n, 256)] / t[(model, n, n)] - 1:>+15.1%}")
    picks = {(p.model, p.gpus, p.size): p.best.par for p in points}
    print("  fastest (T, P, D, and v when interleaved) at K = 8 / 256 / ideal:")
    for model in ("gpt-1t", "gpt-146b"):
        for n in FIG8_GPUS:
            chosen = " / ".join(
                f"({q.T}, {q.P}, {q.D}{f', v={q.interleave}' if q.interleave > 1 else ''})"
                for q in (picks[(model, n, k)] for k in (8, 256, n))
            )
            print(f"    {model:<9}{n:>7}: {chosen}")
    print(f"{'':<16}{'railx (16,384 / 32,768 / 65,536 GPUs)':<44}paper")
    claims = [
        (f"{model.upper()}: K = 256 slower than ideal by", model,
         lambda m, n: t[(m, n, 256)] / t[(m, n, n)] - 1, f"{paper:.1%}")
        for model, paper in PAPER_FIG8_OVER_IDEAL.items()
    ] + [
        (f"{model.upper()}: K {a} -> {b} cuts the time by", model,
         lambda m, n, a=a, b=b: 1 - t[(m, n, b)] / t[(m, n, a)], f"{paper:.1%}")
        for (model, a, b), paper in PAPER_FIG8_CUT.items()
    ]  # fmt: skip
    for text, model, value, paper in claims:
        ours = " / ".join(f"{value(model, n):.1%}" for n in FIG8_GPUS)
        print(f"  {text:<42}{ours:<26}{paper}")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), dpi=100)
    for ax, model, title in zip(axes, ("gpt-1t", "gpt-146b"), ("(a) GPT-1T", "(b) GPT-146B"), strict=True):
        for n, color in zip(FIG8_GPUS, ("tab:blue", "tab:orange", "tab:green"), strict=True):
            ax.plot(HB_SIZES, [t[(model, n, k)] for k in HB_SIZES], "o-", color=color, label=f"Rail-only N={n}")
            ax.axhline(t[(model, n, n)], color=color, linestyle="--", label=f"ideal N={n}")
        ax.set_xscale("log", base=2)
        ax.set_xticks(HB_SIZES, [str(k) for k in HB_SIZES])
        ax.set_xlabel("HB domain size K")
        ax.set_ylabel("iteration time (s)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=6)
    fig.suptitle("Fig. 8: iteration time against HB-domain size", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / f"railonly_fig8{suffix}.png")
    plt.close(fig)


def fig9(points: list[Point], out: Path, suffix: str = "") -> None:
    t = {(p.size, p.hb_tbps, p.nic_gbps): p.time_s for p in points}
    hbs = sorted({p.hb_tbps for p in points})
    nics = sorted({p.nic_gbps for p in points})
    print(f"\nFig. 9: GPT-1T on {points[0].gpus} GPUs, iteration time (s), rows HB Tb/s, columns NIC Gb/s")
    for k in (8, 256):
        print(f"K = {k}: " + "".join(f"{n:>8g}" for n in nics))
        for hb in hbs:
            print(f"  {hb:>5g}" + "".join(f"{t[(k, hb, n)]:>8.3f}" for n in nics))
    cuts = bandwidth_cuts(points)
    print(f"  {'(mean over the other bandwidth)':<48}{'railx':>8}{'paper':>8}")
    for kind, what, paper in (
        ("nic", "NIC 100 -> 400 Gb/s", PAPER_FIG9_NIC_CUT),
        ("hb", "HB 2.4 -> 9.6 Tb/s", PAPER_FIG9_HB_CUT),
    ):
        for k, printed in paper.items():
            print(f"  {f'{what} cuts the time, K = {k}':<48}{cuts[(kind, k)]:>8.1%}{printed:>8.1%}")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), dpi=100)
    for ax, k in zip(axes, (8, 256), strict=True):
        for hb in hbs:
            ax.plot(nics, [t[(k, hb, n)] for n in nics], "o-", label=f"{hb:g} Tbps HBD")
        ax.set_xlabel("NIC bandwidth (Gb/s)")
        ax.set_ylabel("iteration time (s)")
        ax.set_title(f"({'a' if k == 8 else 'b'}) K = {k}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("Fig. 9: GPT-1T iteration time against HB and NIC bandwidth", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / f"railonly_fig9{suffix}.png")
    plt.close(fig)


def fig10(points: list[Point], out: Path, suffix: str = "") -> None:
    gpus = points[0].gpus
    t = {(p.size, p.global_batch): p.time_s for p in points}
    sizes = sorted({p.size for p in points})
    batches = sorted({p.global_batch for p in points})
    rel = relative_to_ideal(points)
    print(f"\nFig. 10: GPT-1T on {gpus} GPUs, iteration time (s) and relative performance to ideal")
    print(f"{'K':>7}" + "".join(f"{b:>8}" for b in batches) + "   relative: " + "".join(f"{b:>6}" for b in batches))
    for k in sizes:
        print(
            f"{k:>7}"
            + "".join(f"{t[(k, b)]:>8.3f}" for b in batches)
            + "            "
            + "".join(f"{rel[(k, b)]:>6.2f}" for b in batches)
        )
    first, last = batches[0], batches[-1]
    print(f"  relative performance, batch {first} -> {last}:   railx           paper")
    for k, (low, high) in PAPER_FIG10_RELATIVE.items():
        print(f"    K = {k:<4}{'':>26}{rel[(k, first)]:.0%} -> {rel[(k, last)]:.0%}      {low:.0%} -> {high:.0%}")
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.2), dpi=100)
    for k in sizes:
        label = f"ideal (K={k})" if k == gpus else f"K={k}"
        a.plot(batches, [t[(k, x)] for x in batches], "o-", label=label)
        b.plot(batches, [rel[(k, x)] for x in batches], "o-", label=label)
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.set_xticks(batches, [str(x) for x in batches])
        ax.set_xlabel("global batch (sequences)")
        ax.legend(fontsize=6)
    a.set_ylabel("iteration time (s)")
    b.set_ylabel("relative performance to ideal")
    a.set_title("(a) iteration time", fontsize=9)
    b.set_title("(b) relative performance", fontsize=9)
    fig.suptitle("Fig. 10: GPT-1T against global batch", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / f"railonly_fig10{suffix}.png")
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures", help="where the PNGs go")
    parser.add_argument(
        "--choices", choices=("railx", "calculon"), default="railx", help="the sweeps' modelling choices"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    choices = CALCULON if args.choices == "calculon" else RAILX
    suffix = "" if choices is RAILX else f"_{choices.name}"
    start = time.perf_counter()
    if choices is RAILX:
        timed("Fig. 7", lambda: fig7(args.out))
    print(f"\nFigs. 8-10 with the {choices.name} choices")
    fig8(timed("Fig. 8 sweep (60 points)", lambda: hb_size_sweep(choices=choices)), args.out, suffix)
    fig9(timed("Fig. 9 sweep (32 points)", lambda: bandwidth_sweep(choices=choices)), args.out, suffix)
    fig10(timed("Fig. 10 sweep (35 points)", lambda: batch_sweep(choices=choices)), args.out, suffix)
    print(f"\ntotal {time.perf_counter() - start:.1f} s; figures in {args.out}")


if __name__ == "__main__":
    main()
