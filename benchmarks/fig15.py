"""RailX paper Fig. 15 (§6.4), analytic and flow level: all-reduce time of the 1D-ring, 2D-torus (2D-ring) and
hierarchical algorithms on a 4x4-mesh RailX torus with one port per chip edge (n = 1; four ports
per chip), 100 GB/s and 300 ns per external hop, 400 GB/s and 10 ns per mesh hop, from 16 to
65,536 chips and 1 KiB to 1 GiB (sizes are binary: 1 KiB = 2^10 bytes, 1 MiB = 2^20, 1 GiB =
2^30; KB, MB, GB are powers of 1,000 in railx). The flow-level simulator runs the same explicit
schedules (railx.flowsim.collective, aggregated over the node translations) for 1 KiB, 1 MiB and 1 GiB
at every scale: the 2D torus and hierarchical algorithms aggregated over every translation, the 1D
ring over the translations by whole rows of nodes only, its messages generated step by step (up to
4,096 chips in the flow sweep; 16,384 and 65,536 chips here, one point at a time with its progress on
stderr: minutes each). The flit-level simulator runs them too where it fits
(up to 256 chips, 1 KiB and 1 MiB; `railx collective --fidelity flit`, dateline routing where the
system has rings).

Every level is a shipped sweep of the collective analysis (examples/sweeps/fig15.toml,
fig15-flow.toml, fig15-flit.toml) run by railx's sweep engine (`--workers`, `--scheduler`,
`--store` as `railx sweep`). Writes
docs/figures/fig15.csv, fig15.json and fig15.png and prints the Markdown table recorded in
docs/reproductions.md, plus the checks of the paper's claims (the hierarchical algorithm is the
fastest everywhere; its advantage is largest at small sizes and large scale) and how far the 1D
ring is from the fastest at the largest size. `--from-json` prints and plots the recorded
OUT/fig15.json again without computing.

    PYTHONPATH=python python3 benchmarks/fig15.py [--out docs/figures] [--from-json]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from railx.sweep import Sweep, load_spec
from railx.sweep.batch import Runner, runner

ALGOS = {"1D-ring": "bidir-ring", "2D-torus": "2d-ring", "hierarchical": "hierarchical"}
GRIDS = [1, 2, 4, 8, 16, 32, 64]  # p x p nodes of 16 chips: 16 .. 65,536 chips
SIZES = [1 << e for e in range(10, 31, 2)]  # 1 KiB .. 1 GiB, x4 steps
FLOW_SIZES = [1 << 10, 1 << 20, 1 << 30]
# The 1D ring over all chips is invariant only under the translations by whole rows of nodes (p of
# them): 4N(N-1)/p flows, generated step by step as they become ready (docs/flow.md), each event
# re-solving only the flows connected to those that start or finish. fig15-flow.toml runs it up to
# 4,096 chips (a few CPU-seconds per size); the larger scales run here, in this process, with a
# progress line on stderr every 10% (measured 2026-11-27, CPU-s per size: 16,384 chips 9-31,
# 65,536 chips 83-229). `--ring-max-chips` skips the larger ones. Flit level (fig15-flit.toml): up
# to 256 chips and 1 MiB (1 GiB exceeds its 1e8-flit limit), well under a second each.
RING_GRIDS = [32, 64]  # 16,384 and 65,536 chips: the 1D ring at flow level, run by ring_points


SPECS = Path(__file__).resolve().parent.parent / "examples" / "sweeps"
LEVELS = {"analytic": "fig15", "flow": "fig15-flow", "flit": "fig15-flit"}


def chips(p: int) -> int:
    """Chips of a p x p torus of 4 x 4 meshes."""
    return 16 * p * p


def fig15_sweeps() -> dict[str, Sweep]:
    """The three levels as the shipped sweeps of the collective analysis (R = 2p gives p x p
    nodes): examples/sweeps/fig15.toml (analytic, every point), fig15-flow.toml and
    fig15-flit.toml (where each level runs: the scale limits above)."""
    return {fidelity: load_spec(SPECS / f"{name}.toml") for fidelity, name in LEVELS.items()}


def ring_points(max_chips: int) -> dict[tuple[int, str, int], dict]:
    """The 1D ring at flow level on the RING_GRIDS scales up to `max_chips`, keyed like the sweep
    points, each with its progress on stderr; says on stderr which scales it skips and why."""
    import railx
    from railx.collectives.params import fig15_torus_toml
    from railx.config import Config
    from railx.flowsim import collective

    out: dict[tuple[int, str, int], dict] = {}
    for p in RING_GRIDS:
        if chips(p) > max_chips:
            print(
                f"1D ring at flow level, {chips(p):,} chips: skipped (--ring-max-chips {max_chips:,}; "
                f"4N(N-1)/p = {4 * chips(p) * (chips(p) - 1) // p:,} flows, minutes per size)",
                file=sys.stderr,
            )
            continue
        network = railx.realize(Config.from_toml(fig15_torus_toml(4, p)))
        for size in FLOW_SIZES:
            what = f"1D ring at flow level, {chips(p):,} chips, {_fmt_size(size)}"
            cpu_s = time.process_time()
            result = collective(network, "all-reduce", "bidir-ring", size, progress=_stderr_progress(what))
            print(
                f"{what}: {result.completion_s * 1e3:.4f} ms simulated, {result.flows:,} flows, "
                f"{result.events:,} events, {time.process_time() - cpu_s:.1f} CPU-s",
                file=sys.stderr,
            )
            out[(p, "bidir-ring", size)] = {"time_s": result.completion_s}
    return out


def _stderr_progress(what: str) -> Callable[[int, int | None, str], None]:
    """A progress callback printing `what` and the share done on stderr at every further 10%."""
    shown = [0]

    def report(done: int, total: int | None, unit: str) -> None:
        tenth = 10 * done // total if total else 0
        if tenth > shown[0]:
            shown[0] = tenth
            print(f"{what}: {done:,} of {total:,} {unit} ({10 * tenth}%)", file=sys.stderr, flush=True)

    return report


def rows(run_on: Runner, ring: dict[tuple[int, str, int], dict]) -> list[dict[str, float | int | str]]:
    """Every point analytic; the flow- and flit-level points where they run (module docs), with
    the bus bandwidth of a simulated point scaled from the analytic one by the time; `ring`: the
    1D ring's flow-level points beyond the flow sweep (`ring_points`)."""
    times: dict[str, dict[tuple[int, str, int], dict]] = {}
    for fidelity, sweep in fig15_sweeps().items():
        frame = run_on.frame(sweep)
        failed = frame[frame["status"] != "ok"]
        if not failed.empty:
            raise SystemExit(f"{sweep.name}: {len(failed)} points failed, e.g. {failed['error'].iloc[0]}")
        times[fidelity] = {
            (inputs["document"]["system"]["R"] // 2, inputs["options"]["algo"], inputs["options"]["size"]): record
            for inputs, record in zip(frame["inputs"], frame["record"])
        }
    times["flow"].update(ring)
    out = []
    for p in GRIDS:
        for size in SIZES:
            for label, algo in ALGOS.items():
                e = times["analytic"][(p, algo, size)]
                point = {"chips": chips(p), "size_bytes": size, "algorithm": label, "algo": algo}
                out.append({**point, "fidelity": "analytic", "time_s": e["time_s"], "busbw_Bps": e["busbw_Bps"]})
                for fidelity in ("flow", "flit"):
                    if (p, algo, size) in times[fidelity]:
                        t_s = times[fidelity][(p, algo, size)]["time_s"]
                        busbw = e["busbw_Bps"] * e["time_s"] / t_s
                        out.append({**point, "fidelity": fidelity, "time_s": t_s, "busbw_Bps": busbw})
    return out


def _fmt_size(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size // scale} {unit}"
    return f"{size} B"


def _times(data: list[dict], fidelity: str) -> dict[tuple[int, int, str], float]:
    return {(r["chips"], r["size_bytes"], r["algorithm"]): r["time_s"] for r in data if r["fidelity"] == fidelity}


def _speedup(t: dict[tuple[int, int, str], float], chips: int, size: int) -> str:
    """Hierarchical over the better of the others (over the 2D torus alone where the ring is absent)."""
    others = [t[(chips, size, a)] for a in ("1D-ring", "2D-torus") if (chips, size, a) in t]
    return f"{min(others) / t[(chips, size, 'hierarchical')]:.2f}x"


def table(data: list[dict]) -> str:
    """Times in microseconds, analytic / flow / flit level ("—" where a fidelity did not run),
    with the speed-up of hierarchical over the better of the others at each fidelity."""
    by = {f: _times(data, f) for f in ("analytic", "flow", "flit")}
    lines = [
        "| chips | size | 1D-ring us | 2D-torus us | hierarchical us | speed-up vs best other |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for p in GRIDS:
        for size in FLOW_SIZES:
            n = chips(p)
            cells = [
                " / ".join(f"{t[(n, size, a)] * 1e6:,.2f}" if (n, size, a) in t else "—" for t in by.values())
                for a in ALGOS
            ]
            speedups = " / ".join(_speedup(t, n, size) if (n, size, "hierarchical") in t else "—" for t in by.values())
            lines.append(f"| {n:,} | {_fmt_size(size)} | {' | '.join(cells)} | {speedups} |")
    return "\n".join(lines)


def claims(data: list[dict]) -> list[str]:
    by = _times(data, "analytic")
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
        ring_claim(by),
        *flow_claims(data),
    ]


def ring_claim(by: dict[tuple[int, int, str], float]) -> str:
    """The 1D ring's time over the fastest algorithm's at the largest size, per scale: its latency
    term, 2(N - 1) steps over all N chips, keeps it from bandwidth-optimal at hyper-scale."""
    size = max(s for _, s, _ in by)
    chips = sorted({c for c, _, _ in by})
    ratio = {c: by[(c, size, "1D-ring")] / min(by[(c, size, a)] for a in ALGOS) for c in chips}
    return f"1D ring / fastest at {_fmt_size(size)}: " + ", ".join(f"{c:,}: {r:.2f}x" for c, r in ratio.items())


def flow_claims(data: list[dict]) -> list[str]:
    """The paper's claim at flow level, and how far the flow level is from the analytic model."""
    ana, flow = _times(data, "analytic"), _times(data, "flow")
    multi_node = [(c, s) for c, s, a in flow if a == "hierarchical" and c > 16]
    fastest = all(
        flow[(c, s, "hierarchical")] < min(flow[k] for k in flow if k[:2] == (c, s) and k[2] != "hierarchical")
        for c, s in multi_node
    )
    ratio = {a: [flow[k] / ana[k] for k in flow if k[2] == a] for a in ALGOS}
    return [
        f"flow level: hierarchical strictly fastest at every multi-node point: {fastest}",
        "flow / analytic: " + ", ".join(f"{a} {min(r):.3f}..{max(r):.3f}" for a, r in ratio.items()),
    ]


def plot(data: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [16, 1024, 65536]
    fig, axes = plt.subplots(1, len(shown), figsize=(15, 4.5), sharey=True)
    for ax, chips in zip(axes, shown):
        for color, label in zip(("C0", "C1", "C2"), ALGOS):
            for fidelity, style in (("analytic", "-o"), ("flow", "x"), ("flit", "+")):
                pts = [
                    (r["size_bytes"], r["time_s"])
                    for r in data
                    if r["chips"] == chips and r["algorithm"] == label and r["fidelity"] == fidelity
                ]
                if pts:
                    ax.loglog(
                        [s for s, _ in pts],
                        [t for _, t in pts],
                        style,
                        color=color,
                        markersize=8,
                        label=f"{label} ({fidelity})",
                    )
        ax.set_title(f"{chips:,} chips")
        ax.set_xlabel("all-reduce size (bytes, 1 KiB = 2^10 to 1 GiB = 2^30)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("time (s)")
    axes[0].legend()
    fig.suptitle(
        "RailX Fig. 15 (lines: analytic, x: flow level, +: flit level): all-reduce time, m=4, n=1, 100 GB/s 300 ns external, 400 GB/s 10 ns mesh"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/figures"), help="directory for fig15.csv/json/png")
    parser.add_argument("--from-json", action="store_true", help="print and plot OUT/fig15.json without computing")
    parser.add_argument("--workers", type=int, default=1, help="worker processes of the embedded Dask cluster")
    parser.add_argument("--scheduler", help="an existing Dask scheduler's address instead, e.g. tcp://host:8786")
    parser.add_argument("--store", type=Path, help="result store to use and keep (default: a temporary one)")
    parser.add_argument(
        "--ring-max-chips",
        type=int,
        default=chips(RING_GRIDS[-1]),
        help="run the 1D ring at flow level beyond 4,096 chips up to this many chips (default: all)",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.from_json:
        data = json.loads((args.out / "fig15.json").read_text())
    else:
        ring = ring_points(args.ring_max_chips)
        with runner(args.scheduler, args.workers, args.store) as run_on:
            data = rows(run_on, ring)
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
