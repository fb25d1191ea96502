"""The algorithms' shapes on a RailX system, as the Rust schedules build them
(crates/railx-core/src/collectives): the *lines* each algorithm runs on, with the link every
step crosses, and per data part the order of the lines. The analytic models (models.py) price
these stages; the schedules' byte counts are checked against them in the tests.

Links per line (per direction, per chip; a step costs the latency of the slowest hop on it):

- `mesh`: the m^2 chips of a node on a Hamiltonian cycle of the mesh: alpha_in, mesh_bw (a chip
  edge's n lanes of intra_bw: k n port_bw).
- `mesh-x` / `mesh-y`: m chips of a mesh row / column: alpha_in, mesh_bw.
- `chips-x` / `chips-y` (2D-ring): the m*P chips of a chip row through meshes and rails: alpha_out,
  min(mesh_bw, n_axis * port_bw), n_axis = rails used on the axis / m (the n of eq. 7).
- `nodes-x` / `nodes-y`, or one logical dimension: the chips of one local rank across nodes;
  the node's rails of that dimension are shared by its m^2 local ranks: alpha_out,
  rails * port_bw / m^2 (nB/m with all r = m*n rails, eq. 8 and 13).
- `all` (1D ring over every chip, Fig. 15): the ring folds through each mesh and uses the
  external ports of both axes, so it gets twice a chip edge's external bandwidth and half a
  mesh link (the paper's "double bandwidth for the 1D-ring" and "200 GB/s for 1D-ring on the
  2D-mesh"): min(2 n port_bw, mesh_bw / 2); alpha_out when it crosses nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from railx.collectives.params import LogicalDim, RailxParams
from railx.config import ConfigError
from railx.messages import shown

__all__ = ["ALGORITHMS", "OPS", "SIPCO_ALGORITHMS", "OP_ALIASES", "Line", "LineLink", "Plan", "canonical_op", "plan"]

OPS = ("all-reduce", "reduce-scatter", "all-gather", "all-to-all")
# The unhyphenated spellings of earlier releases, still accepted on input (output is canonical).
OP_ALIASES = {op.replace("-", ""): op for op in OPS}
ALGORITHMS = ("ring", "bidir-ring", "2d-ring", "hierarchical", "direct", "multi-rail", "two-step")
# Schedules by SiPAC CU addresses, not plans of lines: priced by railx.collectives.sipco.
SIPCO_ALGORITHMS = ("sipco", "flex-sipco")
LineAlgo = Literal["ring", "bidir-ring", "direct"]


@dataclass(frozen=True)
class LineLink:
    """What one step on a line costs: latency `alpha_s` and per-direction bandwidth `bw_Bps`."""

    alpha_s: float
    bw_Bps: float


@dataclass(frozen=True)
class Line:
    """`size` ranks acting as one ring or fully connected set. A line over several node
    dimensions that are not one physical ring (an all-to-all routed dimension by dimension) has
    `routed`: the links of each dimension it crosses."""

    name: str
    size: int
    algo: LineAlgo
    link: LineLink
    routed: tuple[tuple[int, LineLink], ...] = ()


@dataclass(frozen=True)
class Plan:
    """Per data part (equal shares running at once) the lines in reduce-scatter order; an
    all-reduce all-gathers back in reverse, an all-to-all exchanges line by line."""

    ranks: int
    parts: tuple[tuple[Line, ...], ...]


def _node_link(params: RailxParams, rails: int) -> LineLink:
    return LineLink(params.alpha_out_s, rails * params.port_bw_Bps / params.m**2)


def _node_lines(params: RailxParams, axis: Literal["x", "y"], algo_of: dict[str, LineAlgo]) -> list[Line]:
    return [
        Line(f"{axis.upper()}{i}:{d.kind}", d.size, algo_of[d.kind], _node_link(params, d.rails))
        for i, d in enumerate(params.dims(axis))
    ]


def _axis_line(params: RailxParams, axis: Literal["x", "y"]) -> Line:
    """All node dimensions of an axis as one bidirectional ring (hierarchical's X or Y stage)."""
    dims: tuple[LogicalDim, ...] = params.dims(axis)
    size = 1
    for d in dims:
        size *= d.size
    return Line(f"nodes-{axis}", size, "bidir-ring", _node_link(params, sum(d.rails for d in dims)))


def _mesh(params: RailxParams, algo: LineAlgo = "bidir-ring") -> Line:
    return Line("mesh", params.m**2, algo, LineLink(params.alpha_in_s, params.mesh_bw_Bps))


def _routed_nodes(params: RailxParams) -> Line:
    """Every node dimension at once (one local rank's all-to-all across the node grid)."""
    dims = [*params.x, *params.y]
    size = 1
    for d in dims:
        size *= d.size
    routed = tuple((d.size, _node_link(params, d.rails)) for d in dims)
    return Line("nodes", size, "direct", routed[0][1], routed)


def canonical_op(op: str) -> str:
    """The canonical (hyphenated) name of a collective operation given by its canonical or its
    older unhyphenated name; a ConfigError for any other name."""
    if op in OPS:
        return op
    if op in OP_ALIASES:
        return OP_ALIASES[op]
    raise ConfigError(f"op = {shown(op)}: not a collective operation; use {', '.join(OPS)}")


def plan(algo: str, op: str, params: RailxParams) -> Plan:
    """The lines and part orders of `algo` for `op` on a whole RailX system; a ConfigError when
    the algorithm does not apply."""
    op = canonical_op(op)
    if algo not in ALGORITHMS:
        raise ConfigError(f"algo = {shown(algo)}: not a collective algorithm; use {', '.join(ALGORITHMS)}")
    m, n, pb = params.m, params.n, params.port_bw_Bps
    nodes = params.p * params.q
    reduction = op != "all-to-all"
    if algo in ("ring", "bidir-ring", "2d-ring", "hierarchical") and not reduction:
        raise ConfigError(
            f"algo = {algo}: {algo} is a reduction algorithm; use direct, two-step or multi-rail for an all-to-all"
        )
    if algo == "two-step" and reduction:
        raise ConfigError(
            "algo = two-step: two-step is an all-to-all algorithm; use hierarchical, multi-rail, 2d-ring or ring for a reduction"
        )
    if algo in ("ring", "bidir-ring"):
        across = nodes > 1
        link = LineLink(
            params.alpha_out_s if across else params.alpha_in_s,
            min(2 * n * pb, params.mesh_bw_Bps / 2) if across else params.mesh_bw_Bps,
        )
        line = Line("all", params.chips, "ring" if algo == "ring" else "bidir-ring", link)
        return Plan(params.chips, ((line,),))
    if algo == "2d-ring":
        rows = []
        extents: tuple[tuple[Literal["x", "y"], int], ...] = (("x", params.p), ("y", params.q))
        for axis, extent in extents:
            n_axis = sum(d.rails for d in params.dims(axis)) / m
            link = LineLink(params.alpha_out_s, min(params.mesh_bw_Bps, n_axis * pb))
            rows.append(Line(f"chips-{axis}", m * extent, "bidir-ring", link))
        return Plan(params.chips, ((rows[0], rows[1]), (rows[1], rows[0])))
    if algo == "hierarchical":
        x, y = _axis_line(params, "x"), _axis_line(params, "y")
        return Plan(params.chips, ((_mesh(params), x, y), (_mesh(params), y, x)))
    if algo == "direct":
        if not reduction:
            dims = (*params.x, *params.y)
            mesh_routed = ((m, LineLink(params.alpha_in_s, params.mesh_bw_Bps)),) * 2
            routed = mesh_routed + tuple((d.size, _node_link(params, d.rails)) for d in dims)
            return Plan(params.chips, ((Line("all", params.chips, "direct", routed[0][1], routed),),))
        axes: tuple[Literal["x", "y"], ...] = ("x", "y")
        for axis in axes:
            for i, d in enumerate(params.dims(axis)):
                if d.kind != "all-to-all":
                    raise ConfigError(
                        f"algo = direct: a direct reduction needs fully connected (HyperX) dimensions, but {axis.upper()} "
                        f"dimension {i} (size {d.size}) is a {d.kind}; configure the rails as all-to-all "
                        f'(topology preset "hyperx"), or use hierarchical or 2d-ring'
                    )
        direct: dict[str, LineAlgo] = {"all-to-all": "direct", "ring": "direct"}
        xs, ys = _node_lines(params, "x", direct), _node_lines(params, "y", direct)
        return Plan(params.chips, ((_mesh(params), *xs, *ys), (_mesh(params), *ys, *xs)))
    if algo == "multi-rail":
        inner = LineLink(params.alpha_in_s, params.mesh_bw_Bps)
        kinds: dict[str, LineAlgo] = (
            {"ring": "bidir-ring", "all-to-all": "direct"} if reduction else {"ring": "direct", "all-to-all": "direct"}
        )
        mesh_algo: LineAlgo = "bidir-ring" if reduction else "direct"
        lines = (
            Line("mesh-x", m, mesh_algo, inner),
            Line("mesh-y", m, mesh_algo, inner),
            *_node_lines(params, "x", kinds),
            *_node_lines(params, "y", kinds),
        )
        return Plan(params.chips, (lines,))
    # two-step: across nodes among the same local rank, then inside the mesh.
    return Plan(params.chips, ((_routed_nodes(params), _mesh(params, "direct")),))
