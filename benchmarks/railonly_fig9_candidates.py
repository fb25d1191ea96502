"""Rail-only paper, Fig. 9: candidate causes of the gap between railx's bandwidth sensitivities
and the paper's (docs/reproductions.md, "Rail-only: iteration time", Fig. 9).

    python3 benchmarks/railonly_fig9_candidates.py [--grid]

Each candidate is a one-off experiment: railx's iteration model with one assumption switched to
what the paper might have used (a unit reading, no hierarchical collectives, what is overlapped,
how wide tensor parallelism may be, how large a pipeline send is, the cluster size, the metric),
evaluated on the Fig. 9 sweep (GPT-1T, batch 4096, K = 8 and 256, HB 2.4-9.6 Tb/s, NIC
100-400 Gb/s, the fastest parallelisation at every point). None of them changes railx: the
switches are patches local to this script. For the assumptions that move Fig. 9 the most, the
script also prints what they do to Figs. 8 and 10, whose numbers any true cause must keep.
`--grid` evaluates every combination of the switches (1,152 variants, about 10 minutes) and
prints the ten closest to the paper's four numbers.

The last rows are not patches but railx's own options (:data:`sweeps.CALCULON` and its parts):
the execution choices of Calculon, the tool the paper's model follows (pipeline sends exposed,
bubble slots carrying communication, one layer's gradient all-reduce exposed, every pipeline
interleaving, micro-batch size and recomputation mode searched, optimizer sharding), all of them,
some removed one at a time, and some added to railx's default. Six rows add to them, as patches
local to this script, what railx does not model of Calculon: its H100 systems' network
efficiencies (bandwidths scaled), its DP/PP collision on a shared network, the compute share
hidden DP traffic takes (`processor_usage`) and its tiled TP overlap.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import itertools
import math
import statistics
import time
from collections.abc import Iterator
from typing import Any

from railx.progress import tracked
from railx.workload.railonly import sweeps
from railx.workload.railonly.sweeps import CALCULON, RAILX, Choices
from railx.workload.system import HbDomainsConfig

ITERATION = importlib.import_module("railx.workload.iteration")
SEARCH = importlib.import_module("railx.workload.search")
TRAFFIC = importlib.import_module("railx.workload.traffic")

PAPER = (35.9, 8.0, 8.0, 13.3)
"""NIC 100 -> 400 Gb/s at K = 8 and 256, HB 2.4 -> 9.6 Tb/s at K = 8 and 256 (% faster, §V-C)."""
HB_TBPS = (2.4, 4.8, 7.2, 9.6)
NIC_GBPS = (100, 200, 300, 400)


@dataclasses.dataclass(frozen=True)
class Variant:
    """railx's Fig. 9 model with some assumptions switched (defaults: railx's own)."""

    label: str
    nic_scale: float = 1.0  # 0.5: the paper's Gb/s read as a two-way total (half each direction)
    hb_scale: float = 1.0  # 0.5: the same for its Tb/s
    flat: bool = False  # no hierarchical collectives: a dimension spanning domains runs at the NIC rate
    overlap: tuple[str, ...] = ("D", "P")  # eq. 10's classes that hide under compute
    t_max: str = "-"  # "8": T <= 8 (Megatron-LM's practice); "K": TP inside one HB domain
    pp_full: bool = False  # pipeline sends carry the whole activation, not 1/T of it
    tp_exposed: float = 1.0  # fraction of the tensor-parallel traffic on the critical path (the rest overlapped)
    gpus: int = 32768
    speedup: bool = False  # "improvement" read as t_before / t_after - 1, not 1 - t_after / t_before
    choices: Choices = RAILX  # the sweep's modelling choices (railx's options, not a patch)
    tp_tiled: bool = False  # Calculon's tiled TP overlap (ring schedule, NVLink's processor usage)
    dp_pp_collide: bool = False  # Calculon's DP/PP collision on a shared network
    dp_processor_usage: float = 0.0  # compute share hidden DP traffic takes (Calculon's InfiniBand: 0.02)


NVLINK_PROCESSOR_USAGE = 0.15
"""Calculon's H100 systems (`systems/h100_80g_nvl8.json`, `_nvl256.json`): the compute share NVLink
traffic takes while it overlaps a GEMM."""


def tiled_tp_total_s(it: Any, out: Any) -> float:
    """The iteration with Calculon's tiled TP overlap (`calculon/llm/layers.py`, `LinearOverlapped`,
    ring schedule): each TP reduce-scatter or all-gather in T tiles under its own GEMM (the
    attention's beside qkv and the projection, the FFN's beside each FFN matrix, forward and
    backward), (T - 1)/T of max(0, comm - GEMM) exposed, hidden tiles slowing the GEMM by
    NVLink's processor usage."""
    nb, n = it.par.micro_batches, it.par.T
    weight = 1 + it.bubble_slots / nb if it.system.training.bubble_comm else 1.0
    per_kind = 4 * nb * weight  # one kind of TP collective, one micro-batch, all the stage's layers
    attention = float(out.by_collective_s.get("T.attention", 0.0)) / per_kind
    ffn = sum(float(t) for name, t in out.by_collective_s.items() if name.startswith("T.ffn")) / per_kind
    rate, f = it.system.chip.flops_per_s, it.flops
    pairs = 2 * [
        (attention, f.qkv / rate),
        (attention, f.out_proj / rate),
        (ffn, f.ffn / 2 / rate),
        (ffn, f.ffn / 2 / rate),
    ]
    exposed = sum((n - 1) / n * max(0.0, c - g) for c, g in pairs)
    slowed = sum(NVLINK_PROCESSOR_USAGE * (n - 1) / n * min(c, g) for c, g in pairs)
    return float(out.total_s) - float(out.by_parallelism_s["T"]) + weight * nb * exposed + nb * slowed


def collided_windows(it: Any, pairs: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Calculon's DP/PP collision (`llm.py`, when the DP and PP networks are one): the earlier chunks'
    DP window shrinks by min(chunk DP time // chunk backward time, P) backward pipeline sends each."""
    v, P = it.par.interleave, it.par.P
    if v == 1 or P == 1 or len(pairs) < 2:
        return pairs
    dp_s = sum(float(t.time_s(it.links[t.dim].bw_bytes_per_s)) for t in it.terms if t.parallelism == "D")
    send_s = next(c for c in it.collectives if c.parallelism == "P").volume_bytes / it.links["P"].bw_bytes_per_s
    sends = min(math.floor(dp_s / it.backward_s), P)
    (share, window), *rest = pairs
    return [(share, max(0.0, window - (v - 1) * sends * send_s)), *rest]


@contextlib.contextmanager
def applied(v: Variant) -> Iterator[None]:
    """Install the variant's switches for the duration of the block."""
    links, model, traffic = HbDomainsConfig.links, SEARCH.IterationModel, ITERATION.traffic
    overlap = sweeps.SWEEP_TRAINING["overlap"]

    def flat_links(self: HbDomainsConfig, par: Any) -> Any:
        return {d: link.model_copy(update={"domain_ranks": 1}) for d, link in links(self, par).items()}

    def switched(m: Any, par: Any) -> Any:
        scale = {"P": par.T if v.pp_full else 1, "T": v.tp_exposed}
        return [
            dataclasses.replace(c, volume_elements=c.volume_elements * scale.get(c.parallelism, 1))
            for c in traffic(m, par)
        ]

    class Patched(model):  # type: ignore[misc,valid-type]
        def sub_windows_s(self, cls: Any) -> Any:
            pairs = super().sub_windows_s(cls)
            return collided_windows(self, pairs) if v.dp_pp_collide and cls == "D" else pairs

        def evaluate(self, bw: Any = None) -> Any:
            out = super().evaluate(bw)
            limit = {"8": 8, "K": self.system.hb_domains.size}.get(v.t_max, self.par.T)
            if self.par.T > limit:
                return dataclasses.replace(out, total_s=float("inf"))
            if v.tp_tiled and self.par.T > 1 and bw is None:
                out = dataclasses.replace(out, total_s=tiled_tp_total_s(self, out))
            if v.dp_processor_usage and "D" in out.comm_hidden_class_s:  # `llm.py`: hidden DP slows compute
                out = dataclasses.replace(
                    out, total_s=out.total_s + v.dp_processor_usage * out.comm_hidden_class_s["D"]
                )
            return out

    try:
        if v.flat:
            HbDomainsConfig.links = flat_links  # type: ignore[method-assign]
        if v.t_max != "-" or v.tp_tiled or v.dp_pp_collide or v.dp_processor_usage:
            SEARCH.IterationModel = Patched
        ITERATION.traffic = switched
        sweeps.SWEEP_TRAINING["overlap"] = list(v.overlap)
        yield
    finally:
        HbDomainsConfig.links = links  # type: ignore[method-assign]
        SEARCH.IterationModel, ITERATION.traffic = model, traffic
        sweeps.SWEEP_TRAINING["overlap"] = overlap


def gains(v: Variant) -> tuple[float, float, float, float]:
    """The paper's four Fig. 9 numbers under the variant (%, each a mean over the other bandwidth)."""
    with applied(v):
        t = {
            (k, hb, nic): sweeps.point(
                "gpt-1t", v.gpus, k, 4096, hb * v.hb_scale, nic * v.nic_scale, choices=v.choices
            ).time_s
            for k in (8, 256)
            for hb in HB_TBPS
            for nic in NIC_GBPS
        }

    def gain(before: float, after: float) -> float:
        return 100 * (before / after - 1 if v.speedup else 1 - after / before)

    nic = [statistics.mean(gain(t[(k, hb, NIC_GBPS[0])], t[(k, hb, NIC_GBPS[-1])]) for hb in HB_TBPS) for k in (8, 256)]
    hb = [statistics.mean(gain(t[(k, HB_TBPS[0], n)], t[(k, HB_TBPS[-1], n)]) for n in NIC_GBPS) for k in (8, 256)]
    return nic[0], nic[1], hb[0], hb[1]


def other_figures(v: Variant) -> str:
    """Fig. 8's GPT-1T K = 256 gap to the ideal and Fig. 10's relative performance under the variant."""
    with applied(v):
        n = 32768
        ch = v.choices
        gap = (
            sweeps.point("gpt-1t", n, 256, 4096, choices=ch).time_s
            / sweeps.point("gpt-1t", n, n, 4096, choices=ch).time_s
            - 1
        )
        rel = {
            (k, b): sweeps.point("gpt-1t", n, n, b, choices=ch).time_s
            / sweeps.point("gpt-1t", n, k, b, choices=ch).time_s
            for k in (8, 256)
            for b in (256, 4096)
        }
    return (
        f"Fig. 8 GPT-1T K=256 vs ideal {gap:+.1%} (paper +0.9%); Fig. 10 K=8 {rel[(8, 256)]:.0%} -> {rel[(8, 4096)]:.0%} "
        f"(paper 65% -> 85%), K=256 {rel[(256, 256)]:.0%} -> {rel[(256, 4096)]:.0%} (paper 95% -> 99%)"
    )


CANDIDATES = [
    Variant("railx (baseline)"),
    Variant("improvement read as a speed-up", speedup=True),
    Variant("NIC Gb/s a two-way total", nic_scale=0.5),
    Variant("HB Tb/s a two-way total", hb_scale=0.5),
    Variant("both two-way totals", nic_scale=0.5, hb_scale=0.5),
    Variant("no hierarchical collectives", flat=True),
    Variant("nothing overlapped", overlap=()),
    Variant("DP exposed, PP hidden", overlap=("P",)),
    Variant("T <= 8", t_max="8"),
    Variant("TP inside one HB domain", t_max="K"),
    Variant("16,384 GPUs", gpus=16384),
    Variant("65,536 GPUs", gpus=65536),
    Variant("PP sends whole activations", pp_full=True),
    Variant("PP whole and exposed", pp_full=True, overlap=("D",)),
    Variant("PP whole, nothing overlapped", pp_full=True, overlap=()),
    Variant("half of TP overlapped", tp_exposed=0.5),
    Variant("... and PP whole and exposed", tp_exposed=0.5, pp_full=True, overlap=("D",)),
]


def calculon_variant(label: str, base: Choices = CALCULON, **changes: Any) -> Variant:
    """A row of Calculon's choices: CALCULON with some switched back to railx's default, or (with
    `base=RAILX`) railx's default with some of Calculon's. `changes` name :class:`Choices` fields
    or, for any other name, `[training]` keys."""
    fields = {k: changes.pop(k) for k in list(changes) if k in Choices.__dataclass_fields__}
    return Variant(
        label, choices=dataclasses.replace(base, name=label, training={**base.training, **changes}, **fields)
    )


CALCULON_ROWS = [
    calculon_variant("Calculon's choices (all)"),
    calculon_variant("... but no optimizer sharding", optimizer_sharding=False),
    calculon_variant("... but plain 1F1B (no interleaving)", search_interleave=False),
    calculon_variant("... but pipeline sends hidden", overlap=["D", "P"]),
    calculon_variant("... but no comm in the bubble", bubble_comm=False),
    calculon_variant("... but DP under the last backward only", dp_overlap="stage"),
    dataclasses.replace(calculon_variant("... + InfiniBand at 0.9 efficiency"), nic_scale=0.9),
    dataclasses.replace(calculon_variant("... and NVLink at 0.9 (RS/AG)"), nic_scale=0.9, hb_scale=0.9),
    dataclasses.replace(calculon_variant("... and NVLink at 0.6 (p2p/AR)"), nic_scale=0.9, hb_scale=0.6),
    dataclasses.replace(calculon_variant("... + DP/PP collision"), dp_pp_collide=True),
    dataclasses.replace(calculon_variant("... + DP processor usage 0.02"), dp_processor_usage=0.02),
    dataclasses.replace(calculon_variant("... + tiled TP overlap"), tp_tiled=True),
    calculon_variant("railx + interleavings searched", search_interleave=True, base=RAILX),
    calculon_variant("railx + sends exposed, interleaved", search_interleave=True, base=RAILX, overlap=["D"]),
]
CANDIDATES += CALCULON_ROWS
CROSS_CHECK = {
    "PP whole and exposed",
    "PP whole, nothing overlapped",
    "... and PP whole and exposed",
    *(v.label for v in CALCULON_ROWS if v.nic_scale == v.hb_scale == 1.0),  # other_figures keeps the bandwidths
}


def grid() -> list[Variant]:
    """Every combination of the switches (the metric both ways)."""
    out = []
    for nic, hb, flat, ov, tm, pp, n, sp in itertools.product(
        (1.0, 0.5),
        (1.0, 0.5),
        (False, True),
        ((), ("D",), ("P",), ("D", "P")),
        ("-", "K", "8"),
        (False, True),
        (16384, 32768, 65536),
        (False, True),
    ):
        label = f"nic x{nic} hb x{hb} flat={flat} overlap={''.join(ov) or '-'} T<={tm} pp_full={pp} N={n} speedup={sp}"
        out.append(Variant(label, nic, hb, flat, ov, tm, pp, gpus=n, speedup=sp))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="every combination of the switches (about 10 minutes)")
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"{'candidate':<34}{'NIC K=8':>9}{'NIC K=256':>11}{'HB K=8':>8}{'HB K=256':>10}{'max |diff|':>12}")
    print(f"{'paper':<34}{PAPER[0]:>8.1f}%{PAPER[1]:>10.1f}%{PAPER[2]:>7.1f}%{PAPER[3]:>9.1f}%")
    rows = []
    for v in tracked(grid() if args.grid else CANDIDATES, "Fig. 9 candidates", "variants"):
        g = gains(v)
        err = max(abs(a - b) for a, b in zip(g, PAPER, strict=True))
        rows.append((err, v, g))
        if not args.grid:
            print(f"{v.label:<34}{g[0]:>8.1f}%{g[1]:>10.1f}%{g[2]:>7.1f}%{g[3]:>9.1f}%{err:>11.1f}")
            if v.label in CROSS_CHECK:
                print(f"    {other_figures(v)}")
    if args.grid:
        rows.sort(key=lambda r: r[0])
        for err, v, g in rows[:10]:
            print(f"{err:>5.1f}  {g[0]:.1f}% {g[1]:.1f}% {g[2]:.1f}% {g[3]:.1f}%  {v.label}")
        print(f"{len(rows)} variants")
    print(f"[{time.perf_counter() - start:.1f} s]")


if __name__ == "__main__":
    main()
