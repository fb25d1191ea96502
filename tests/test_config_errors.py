"""Bad configurations get one clear line naming the field, the rule and a valid alternative
(README.md, Configuration (TOML)), never a traceback; valid general-form topologies always load
and realize with the closed-form counts and diameter (RailX paper eq. 1, Table 2)."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import railx
from railx import Config, ConfigError
from railx.config import BYTE_UNITS, parse_bytes


def system(m: int = 2, n: int = 2, R: int = 16, grid: tuple[int, int] | None = (4, 4), extra: str = "") -> str:
    grid_line = f"grid = [{grid[0]}, {grid[1]}]\n" if grid is not None else ""
    return f"[system]\nm = {m}\nn = {n}\nR = {R}\n{grid_line}{extra}"


def topology(body: str) -> str:
    return f"\n[topology]\n{body}\n"


def job(name: str, x: str, y: str, topo: str = 'preset = "torus"', extra: str = "") -> str:
    return f'\n[[jobs]]\nname = "{name}"\nnodes = {{ x = {x}, y = {y} }}\ntopology = {{ {topo} }}\n{extra}'


RING4 = '{ size = 4, kind = "ring", rails = 1 }'
TORUS = topology('preset = "torus"')


@dataclass(frozen=True)
class Bad:
    """A configuration that must be refused: the message starts with `field` and contains `hint`."""

    id: str
    toml: str
    field: str
    hint: str | tuple[str, ...]


BAD = [
    # All-to-all of 4 or 6 nodes: no Hamiltonian decomposition, so an explicit opt-in is needed.
    Bad(
        "hyperx-preset-over-4",
        system(grid=(4, 4)) + topology('preset = "hyperx"'),
        "topology.x[0].size",
        "allow_matching_rail",
    ),
    Bad(
        "all-to-all-size-6",
        system(m=3, n=2, grid=(6, 2))
        + topology('x = [{ size = 6, kind = "all-to-all", rails = 5 }]\ny = [{ size = 2, kind = "ring", rails = 1 }]'),
        "topology.x[0].size",
        "allow_matching_rail",
    ),
    Bad(
        "all-to-all-size-4-on-y",
        system(grid=(2, 4))
        + topology('x = [{ size = 2, kind = "ring", rails = 1 }]\ny = [{ size = 4, kind = "all-to-all", rails = 3 }]'),
        "topology.y[0].size",
        "allow_matching_rail",
    ),
    Bad(
        "job-hyperx-over-4",
        system(grid=(8, 8)) + job("a", "[0, 4]", "[0, 4]", 'preset = "hyperx"'),
        "jobs[0].topology.x[0].size",
        "allow_matching_rail",
    ),
    # The plant.
    Bad("grid-P-over-R/2", system(R=16, grid=(9, 4)) + TORUS, "system.grid[0]", "use grid = [8, 8]"),
    Bad("grid-Q-over-R/2", system(R=16, grid=(4, 9)) + TORUS, "system.grid[1]", "use grid = [8, 8]"),
    Bad("grid-zero", system(R=16, grid=(0, 4)) + TORUS, "system.grid[0]", "use grid ="),
    Bad("grid-one-extent", system(grid=None, extra="grid = [4]\n") + TORUS, "system.grid", "e.g. grid ="),
    Bad("odd-R", system(R=15, grid=None) + TORUS, "system.R", "e.g. R = 128"),
    Bad("m-zero", system(m=0) + TORUS, "system.m", "e.g. m ="),
    Bad("m-negative", system(m=-3) + TORUS, "system.m", "e.g. m ="),
    Bad("n-zero", system(n=0) + TORUS, "system.n", "e.g. n ="),
    Bad("R-zero", system(R=0, grid=None) + TORUS, "system.R", "e.g. R ="),
    Bad("R-negative", system(R=-16, grid=None) + TORUS, "system.R", "e.g. R ="),
    Bad(
        "k-and-intra-bw", system(extra="k = 2\nintra_bw_GBps = 100\n") + TORUS, "system", ("k", "intra_bw_GBps", "e.g.")
    ),
    Bad("m-string", system(m='"4"') + TORUS, "system.m", "e.g. m = 4"),  # type: ignore[arg-type]
    Bad("m-float", system(m=4.0) + TORUS, "system.m", "e.g. m = 4"),  # type: ignore[arg-type]
    Bad("unknown-preset", system() + topology('preset = "mesh"'), "topology.preset", "'hyperx'"),
    Bad(
        "unknown-kind",
        system() + topology(f'x = [{{ size = 4, kind = "torus", rails = 1 }}]\ny = [{RING4}]'),
        "topology.x[0].kind",
        "'ring'",
    ),
    # Rails.
    Bad(
        "rails-over-r",
        system(grid=(4, 4))
        + topology(
            f'x = [{{ size = 2, kind = "ring", rails = 3 }}, {{ size = 2, kind = "ring", rails = 2 }}]\ny = [{RING4}]'
        ),
        "topology.x",
        ("r = m*n = 4", "fewer rails"),
    ),
    Bad(
        "all-to-all-rails-not-multiple",
        system(grid=(5, 4)) + topology(f'x = [{{ size = 5, kind = "all-to-all", rails = 3 }}]\ny = [{RING4}]'),
        "topology.x[0].rails",
        "use rails = 4",
    ),
    Bad(
        "single-link-rails-not-multiple-odd",
        system(grid=(5, 4))
        + topology(f'x = [{{ size = 5, kind = "single-link-all-to-all", rails = 3 }}]\ny = [{RING4}]'),
        "topology.x[0].rails",
        ("ceil((size-1)/2) = 2", "use rails = 2 or 4"),
    ),
    Bad(
        "single-link-rails-not-multiple-even",
        system(grid=(4, 4))
        + topology(f'x = [{{ size = 4, kind = "single-link-all-to-all", rails = 3 }}]\ny = [{RING4}]'),
        "topology.x[0].rails",
        ("the last a perfect matching", "use rails = 2 or 4"),
    ),
    Bad(
        "single-link-rails-zero",
        system(grid=(4, 4))
        + topology(f'x = [{{ size = 4, kind = "single-link-all-to-all", rails = 0 }}]\ny = [{RING4}]'),
        "topology.x[0].rails",
        "e.g. rails = 2",
    ),
    Bad(
        "single-link-over-2r+1",
        system(R=24, grid=(12, 2))
        + topology(
            'x = [{ size = 12, kind = "single-link-all-to-all", rails = 6 }]\ny = [{ size = 2, kind = "ring", rails = 1 }]'
        ),
        "topology.x",
        "r = m*n = 4",
    ),
    Bad(
        "rails-zero",
        system() + topology(f'x = [{{ size = 4, kind = "ring", rails = 0 }}]\ny = [{RING4}]'),
        "topology.x[0].rails",
        "e.g. rails =",
    ),
    Bad(
        "rails-negative",
        system() + topology(f'x = [{{ size = 4, kind = "ring", rails = -1 }}]\ny = [{RING4}]'),
        "topology.x[0].rails",
        "e.g. rails =",
    ),
    # Factorizations.
    Bad(
        "sizes-do-not-multiply-to-grid",
        system(grid=(6, 4))
        + topology(
            f'x = [{{ size = 2, kind = "ring", rails = 1 }}, {{ size = 2, kind = "ring", rails = 1 }}]\ny = [{RING4}]'
        ),
        "topology.x",
        "one dimension of size 6",
    ),
    Bad("axis-missing", system(grid=(4, 4)) + topology(f"x = [{RING4}]"), "topology.y", "one dimension of size 4"),
    Bad(
        "size-1-dimension",
        system() + topology(f'x = [{{ size = 1, kind = "ring", rails = 1 }}, {RING4}]\ny = [{RING4}]'),
        "topology.x[0].size",
        "drop it",
    ),
    Bad(
        "hyperx-preset-over-r+1",
        system(R=16, grid=(7, 7)) + topology('preset = "hyperx"'),
        "topology.preset",
        "use at most r+1 = 5 nodes",
    ),
    Bad(
        "all-to-all-over-r+1",
        system(R=16, grid=(7, 2))
        + topology('x = [{ size = 7, kind = "all-to-all", rails = 6 }]\ny = [{ size = 2, kind = "ring", rails = 1 }]'),
        "topology.x",
        "r = m*n = 4",
    ),
    Bad(
        "dragonfly-too-many-groups",
        system(R=64, grid=(22, 5)) + topology('preset = "dragonfly"'),
        "topology.preset",
        "at most 21 groups",
    ),
    Bad(
        "dragonfly-group-too-big",
        system(R=16, grid=(8, 6)) + topology('preset = "dragonfly"'),
        "topology.preset",
        "use at most r+1 = 5 nodes along Y",
    ),
    Bad(
        "global-all-to-all-not-alone",
        system(grid=(6, 4))
        + topology(
            f'x = [{{ size = 3, kind = "global-all-to-all", rails = 2 }}, {{ size = 2, kind = "ring", rails = 1 }}]\ny = [{RING4}]'
        ),
        "topology.x[0].kind",
        'use kind = "all-to-all"',
    ),
    Bad(
        "global-all-to-all-too-few-rails",
        system(grid=(7, 2))
        + topology(
            'x = [{ size = 7, kind = "global-all-to-all", rails = 2 }]\ny = [{ size = 2, kind = "ring", rails = 1 }]'
        ),
        "topology.x[0].rails",
        "use rails >= 3",
    ),
    # Topology / jobs structure.
    Bad("topology-and-jobs", system(grid=(8, 8)) + TORUS + job("a", "[0, 4]", "[0, 4]"), "topology", "drop [[jobs]]"),
    Bad("neither-topology-nor-jobs", system(grid=(8, 8)), "topology", "add [topology]"),
    Bad("empty-topology", system() + topology(""), "topology", "e.g. preset ="),
    Bad("preset-with-x-y", system() + topology(f'preset = "torus"\nx = [{RING4}]'), "topology.preset", "drop preset"),
    Bad(
        "overlapping-jobs",
        system(grid=(8, 8)) + job("a", "[0, 4]", "[0, 4]") + job("b", "[3, 8]", "[0, 4]"),
        "jobs[1].nodes",
        ("job 'a'", "disjoint"),
    ),
    Bad(
        "duplicate-job-names",
        system(grid=(8, 8)) + job("a", "[0, 4]", "[0, 4]") + job("a", "[4, 8]", "[0, 4]"),
        "jobs[1].name",
        'e.g. name = "job-1"',
    ),
    Bad("blank-job-name", system(grid=(8, 8)) + job(" ", "[0, 4]", "[0, 4]"), "jobs[0].name", "e.g. name ="),
    Bad(
        "job-x-outside-grid",
        system(grid=(8, 8)) + job("a", "[0, 4]", "[0, 4]") + job("b", "[4, 9]", "[0, 4]"),
        "jobs[1].nodes.x",
        "use coordinates in 0..8",
    ),
    Bad(
        "job-y-outside-grid",
        system(grid=(8, 8)) + job("a", "[0, 4]", "[5, 10]"),
        "jobs[0].nodes.y",
        "use coordinates in 0..8",
    ),
    Bad(
        "job-listed-coordinate-outside",
        system(grid=(8, 8))
        + '\n[[jobs]]\nname = "a"\nnodes = { xs = [0, 8], ys = [0, 1] }\ntopology = { preset = "torus" }\n',
        "jobs[0].nodes.x",
        "use coordinates in 0..8",
    ),
    Bad(
        "job-coordinate-twice",
        system(grid=(8, 8))
        + '\n[[jobs]]\nname = "a"\nnodes = { xs = [0, 2, 2], ys = [0, 1] }\ntopology = { preset = "torus" }\n',
        "jobs[0].nodes.x",
        "list each coordinate once",
    ),
    Bad("job-negative-range", system(grid=(8, 8)) + job("a", "[-1, 4]", "[0, 4]"), "jobs[0].nodes", "e.g. x = [0, 4]"),
    Bad("job-empty-range", system(grid=(8, 8)) + job("a", "[3, 3]", "[0, 4]"), "jobs[0].nodes", "e.g. x = [0, 4]"),
    Bad(
        "job-range-and-list",
        system(grid=(8, 8))
        + '\n[[jobs]]\nname = "a"\nnodes = { x = [0, 2], xs = [3], y = [0, 2] }\ntopology = { preset = "torus" }\n',
        "jobs[0].nodes",
        "e.g. x = [0, 4]",
    ),
    # Unknown keys are errors that list the valid keys of that level.
    Bad("unknown-key-top-level", "foo = 1\n" + system() + TORUS, "foo", ("valid keys", "system", "topology", "jobs")),
    Bad(
        "unknown-key-system", system(extra="radix = 16\n") + TORUS, "system.radix", ("valid keys", "R", "port_bw_GBps")
    ),
    Bad(
        "unknown-key-topology",
        system() + topology('preset = "torus"\nallow_matching = true'),
        "topology.allow_matching",
        ("valid keys", "allow_matching_rail"),
    ),
    Bad(
        "unknown-key-dim",
        system() + topology(f'x = [{{ size = 4, kind = "ring", rails = 1, rail = 2 }}]\ny = [{RING4}]'),
        "topology.x[0].rail",
        ("valid keys", "size", "kind", "rails"),
    ),
    Bad(
        "unknown-key-job",
        system(grid=(8, 8)) + job("a", "[0, 4]", "[0, 4]", extra="priority = 1\n"),
        "jobs[0].priority",
        ("valid keys", "name", "nodes", "topology"),
    ),
    Bad(
        "unknown-key-job-nodes",
        system(grid=(8, 8))
        + '\n[[jobs]]\nname = "a"\nnodes = { x = [0, 2], y = [0, 2], z = [0, 1] }\ntopology = { preset = "torus" }\n',
        "jobs[0].nodes.z",
        ("valid keys", "xs", "ys"),
    ),
    Bad(
        "unknown-key-job-topology",
        system(grid=(8, 8)) + job("a", "[0, 4]", "[0, 4]", 'preset = "torus", seed = 1'),
        "jobs[0].topology.seed",
        ("valid keys", "preset"),
    ),
    Bad("missing-system", TORUS, "system", "add it"),
    Bad(
        "missing-job-topology",
        system(grid=(8, 8)) + '\n[[jobs]]\nname = "a"\nnodes = { x = [0, 2], y = [0, 2] }\n',
        "jobs[0].topology",
        "add it",
    ),
]


# Values pydantic refuses (non-positive, non-finite, out of range): the hint comes from the field's examples.
BAD_VALUES = [
    Bad("port-bw-zero", system(extra="port_bw_GBps = 0\n") + TORUS, "system.port_bw_GBps", ()),
    Bad("port-bw-negative", system(extra="port_bw_GBps = -50\n") + TORUS, "system.port_bw_GBps", ()),
    Bad("k-zero", system(extra="k = 0\n") + TORUS, "system.k", ()),
    Bad("intra-bw-negative", system(extra="intra_bw_GBps = -1\n") + TORUS, "system.intra_bw_GBps", ()),
    Bad("alpha-out-zero", system(extra="alpha_out_ns = 0\n") + TORUS, "system.alpha_out_ns", ()),
    Bad("alpha-in-negative", system(extra="alpha_in_ns = -10\n") + TORUS, "system.alpha_in_ns", ()),
    Bad("port-bw-nan", system(extra="port_bw_GBps = nan\n") + TORUS, "system.port_bw_GBps", ()),
    Bad("empty-job-name", system(grid=(8, 8)) + job("", "[0, 4]", "[0, 4]"), "jobs[0].name", ()),
    Bad("port-bw-inf", system(extra="port_bw_GBps = inf\n") + TORUS, "system.port_bw_GBps", ()),
    Bad("m-too-large", system(m=5_000_000_000) + TORUS, "system.m", ()),
    Bad("R-too-large", system(R=5_000_000_000, grid=(2, 2)) + TORUS, "system.R", ()),
]

# Words that offer a valid alternative, for the cases above whose exact wording is not pinned.
ALTERNATIVE_WORDS = ("e.g.", "use ", "valid keys", "drop ", "add ", "set ", "give ", "list ", "move ", "should be ")


def refused(text: str) -> str:
    """The ConfigError message for `text`; fails the test if it loads or raises anything else."""
    with pytest.raises(ConfigError) as info:
        Config.from_toml(text)
    assert type(info.value) is ConfigError
    assert isinstance(info.value, railx.RailxError)
    return str(info.value)


def assert_one_clear_line(message: str, field: str, hint: str | tuple[str, ...]) -> None:
    assert message, "empty error message"
    assert "\n" not in message and "\r" not in message, f"not one line: {message!r}"
    assert "Traceback" not in message
    assert message.startswith(field), f"does not start with the field {field!r}: {message}"
    # The field is followed by its value or the rule, not by more path.
    assert message[len(field) : len(field) + 1] in (" ", ":", ""), message
    hints = (hint,) if isinstance(hint, str) else hint
    for word in hints:
        assert word in message, f"no {word!r} in: {message}"


@pytest.mark.parametrize("case", BAD, ids=[c.id for c in BAD])
def test_bad_config_gives_one_clear_line(case: Bad) -> None:
    assert_one_clear_line(refused(case.toml), case.field, case.hint)


@pytest.mark.parametrize("case", BAD_VALUES, ids=[c.id for c in BAD_VALUES])
def test_bad_config_names_field_and_alternative(case: Bad) -> None:
    message = refused(case.toml)
    assert "\n" not in message
    assert message.startswith(case.field), message
    assert "e.g." in message or "use " in message, message


def test_every_hint_offers_an_alternative() -> None:
    for case in BAD:
        message = refused(case.toml)
        assert any(word in message for word in ALTERNATIVE_WORDS), f"{case.id}: {message}"


def test_malformed_toml_is_one_line_naming_the_source() -> None:
    message = refused("[system\nm = 2\n")
    assert "\n" not in message
    assert message.startswith("<string>: not valid TOML"), message
    assert "line 1" in message
    with pytest.raises(ConfigError) as info:
        Config.from_toml("[system]\nm = 2\nm = 3\n", source="cluster.toml")
    assert str(info.value).startswith("cluster.toml: not valid TOML"), str(info.value)


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        railx.load_config(tmp_path / "absent.toml")
    message = str(info.value)
    assert "\n" not in message and "absent.toml" in message and "cannot read" in message


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            system(grid=(4, 4)) + topology('preset = "hyperx"\nallow_matching_rail = true'), id="hyperx-preset-over-4"
        ),
        pytest.param(
            system(m=3, n=2, grid=(6, 2))
            + topology(
                'allow_matching_rail = true\nx = [{ size = 6, kind = "all-to-all", rails = 5 }]\n'
                'y = [{ size = 2, kind = "ring", rails = 1 }]'
            ),
            id="all-to-all-size-6",
        ),
        pytest.param(
            system(grid=(8, 8)) + job("a", "[0, 4]", "[0, 4]", 'preset = "hyperx", allow_matching_rail = true'),
            id="job-hyperx-over-4",
        ),
    ],
)
def test_allow_matching_rail_opts_in(text: str) -> None:
    config = Config.from_toml(text)
    net = railx.realize(config)
    plan = net.plan()
    # Still a complete graph along each all-to-all dimension: one hop per dimension.
    assert plan["diameter_inter_node"] == plan["closed_form"]["diameter_inter_node"]
    # On every node row, exactly one X rail of the all-to-all is made of 2-cycles (pairs joined
    # both ways); the others are rings.
    per_line: dict[int, int] = {}
    for switch in net.ocs()["switches"]:
        if switch["dim"] == "X" and switch["circuits"]:
            per_line.setdefault(switch["line"], 0)
            per_line[switch["line"]] += _is_two_cycle_rail(switch["circuits"])
    assert per_line and set(per_line.values()) == {1}, per_line


def _is_two_cycle_rail(circuits: list[list[int]]) -> bool:
    succ = {}
    for a, b in circuits:
        plus, minus = (a, b) if a % 2 else (b, a)
        succ[plus // 2] = minus // 2
    return all(succ.get(v) == u and u != v for u, v in succ.items())


def test_valid_example_files_load(examples: Path) -> None:
    from railx.systems import resolve_system

    for path in sorted([*examples.glob("*.toml"), *examples.glob("peers/*.toml")]):
        system = resolve_system(str(path))
        if system.railx is not None:
            assert isinstance(railx.load_config(path), Config)
        else:
            assert system.bom()["chips"] > 0


# ---------------------------------------------------------------------------------------------
# Property: random valid general-form topologies load and realize with the closed forms.


@dataclass(frozen=True)
class Dim:
    size: int
    kind: str
    rails: int

    def toml(self) -> str:
        return f'{{ size = {self.size}, kind = "{self.kind}", rails = {self.rails} }}'

    def diameter(self) -> int:
        return self.size // 2 if self.kind == "ring" else 1

    def circuits(self, nodes: int) -> int:
        """Circuits of this dimension over `nodes` nodes: one per node and rail, except that a
        single-link all-to-all joins each unordered pair of a fiber once per copy."""
        if self.kind != "single-link-all-to-all":
            return nodes * self.rails
        copies = self.rails // (self.size // 2)
        return nodes * copies * (self.size - 1) // 2


def _divisors(value: int) -> list[int]:
    return [d for d in range(2, value + 1) if value % d == 0]


@st.composite
def axis_dims(draw: st.DrawFn, extent: int, r: int, allow_matching_rail: bool) -> list[Dim]:
    sizes: list[int] = []
    rest = extent
    while rest > 1:
        d = draw(st.sampled_from(_divisors(rest)))
        sizes.append(d)
        rest //= d
    while len(sizes) > r:  # every dimension needs a rail of its own
        last = sizes.pop()
        sizes[-1] *= last
    dims = []
    budget = r
    for i, s in enumerate(sizes):
        spare = budget - (len(sizes) - i - 1)  # keep one rail for each later dimension
        all_to_all_ok = s - 1 <= spare and (allow_matching_rail or s not in (4, 6))
        kinds = ["ring"] + ["all-to-all"] * all_to_all_ok + ["single-link-all-to-all"] * (s // 2 <= spare)
        kind = draw(st.sampled_from(kinds))
        per_copy = {"ring": 1, "all-to-all": s - 1, "single-link-all-to-all": s // 2}[kind]
        rails = per_copy * draw(st.integers(1, spare // per_copy))
        budget -= rails
        dims.append(Dim(s, kind, rails))
    return dims


def general_case(
    m: int, n: int, radix: int, grid: tuple[int, int], allow: bool, xs: list[Dim], ys: list[Dim]
) -> tuple[str, dict]:
    """A general-form configuration and its closed forms (RailX paper eq. 1 on a P x Q grid:
    N = P*Q*m^2, Ns = r(P+Q))."""
    p, q = grid
    r = m * n
    text = system(m=m, n=n, R=radix, grid=grid) + topology(
        f"allow_matching_rail = {str(allow).lower()}\n"
        f"x = [{', '.join(d.toml() for d in xs)}]\n"
        f"y = [{', '.join(d.toml() for d in ys)}]"
    )
    expected = {
        "nodes": p * q,
        "chips": p * q * m * m,
        "switches": r * (p + q),
        "diameter_inter_node": sum(d.diameter() for d in xs + ys),
        "circuits": sum(d.circuits(p * q) for d in xs + ys),
        "unused_rails": [r - sum(d.rails for d in xs), r - sum(d.rails for d in ys)],
    }
    return text, expected


@st.composite
def general_topologies(draw: st.DrawFn) -> tuple[str, dict]:
    m = draw(st.integers(1, 4))
    n = draw(st.integers(1, 3))
    r = m * n
    p = draw(st.integers(2, 16))
    q = draw(st.integers(1, 16))
    radix = 2 * max(p, q) + 2 * draw(st.integers(0, 3))
    allow = draw(st.booleans())
    xs = draw(axis_dims(p, r, allow))
    ys = draw(axis_dims(q, r, allow))
    return general_case(m, n, radix, (p, q), allow, xs, ys)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(general_topologies())
@example(general_case(2, 2, 16, (4, 8), True, [Dim(4, "all-to-all", 3)], [Dim(2, "ring", 1), Dim(4, "all-to-all", 3)]))
@example(general_case(3, 2, 24, (12, 6), True, [Dim(2, "ring", 1), Dim(6, "all-to-all", 5)], [Dim(6, "all-to-all", 5)]))
@example(
    general_case(2, 3, 16, (8, 7), False, [Dim(8, "single-link-all-to-all", 4)], [Dim(7, "single-link-all-to-all", 6)])
)
@example(
    general_case(
        4,
        3,
        32,
        (16, 15),
        False,
        [Dim(2, "all-to-all", 2), Dim(8, "all-to-all", 7)],
        [Dim(3, "ring", 2), Dim(5, "all-to-all", 8)],
    )
)
def test_valid_general_topologies_realize_with_closed_forms(case: tuple[str, dict]) -> None:
    text, expected = case
    config = Config.from_toml(text)
    net = railx.realize(config)
    plan = net.plan()
    closed = plan["closed_form"]
    for key in ("nodes", "chips", "switches", "diameter_inter_node"):
        assert plan[key] == expected[key], (key, text)
        assert closed[key] == expected[key], (key, text)
    assert plan["circuits"] == expected["circuits"]
    assert plan["switch_ports_used"] == 2 * expected["circuits"]
    assert plan["regions"][0]["unused_rails"] == expected["unused_rails"]
    assert net.chips == expected["chips"]
    # The synthesised tables pass full verification against the same configuration.
    with tempfile.TemporaryDirectory() as tmp:
        (path,) = net.write_ocs(tmp)
        report = railx.verify_ocs_file(path, config)
        assert report["circuits"] == expected["circuits"]
        assert [r["name"] for r in report["regions"]] == ["system"]
        assert json.loads(path.read_text())["format"] == "railx.ocs/v1"


@given(st.integers(min_value=0, max_value=10**5), st.sampled_from(sorted(BYTE_UNITS)), st.sampled_from(["", " "]))
def test_byte_sizes_read_with_any_unit(count: int, unit: str, gap: str) -> None:
    for spelled in (unit, unit.upper(), unit.capitalize()):
        assert parse_bytes(f"{count}{gap}{spelled}", "size") == count * BYTE_UNITS[unit]


@given(st.integers(min_value=1, max_value=10**9), st.integers(min_value=0, max_value=6))
def test_byte_sizes_read_decimals_and_exponents(count: int, shift: int) -> None:
    # count / 10^shift GB and count e(9 - shift) are both `count` x 10^(9 - shift) bytes, exactly.
    whole, frac = divmod(count, 10**shift)
    decimal = f"{whole}.{frac:0{shift}d}GB" if shift else f"{count}GB"
    assert parse_bytes(decimal, "size") == count * 10 ** (9 - shift)
    assert parse_bytes(f"{count}e{9 - shift}", "size") == count * 10 ** (9 - shift)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "size = '': not a byte size; e.g. 1048576, 1MiB or 1.5GB"),
        ("-5", "size = '-5': not a byte size"),
        ("1 parsec", "size = '1 parsec': not a byte size"),
        ("nan", "size = 'nan': not a byte size"),
        ("1.5", "size = '1.5': not a whole number of bytes (1.5); e.g. 2"),
        ("0.1B", "size = '0.1B': not a whole number of bytes"),
        ("2e18", "size = '2e18': over 1e+18 bytes; e.g. 1TiB"),
        ("1e999999999", "size = '1e999999999': exponent 999999999 beyond +-40; e.g. 1e9"),
        ("1e-999999999", "size = '1e-999999999': exponent -999999999 beyond +-40"),
    ],
)
def test_bad_byte_sizes_are_one_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_bytes(text, "size")
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 8), n=st.integers(1, 4), half=st.integers(1, 32), grid=st.booleans())
def test_the_plant_is_the_cores_with_its_grid_default(m: int, n: int, half: int, grid: bool) -> None:
    """Python reads the plant's facts from the core: the grid defaults to R/2 x R/2 and the chips
    are P*Q*m^2 (RailX paper eq. 1 at full size)."""
    from railx.config import SystemConfig

    given_grid = [max(1, half - 1), half] if grid else None
    plant = SystemConfig(m=m, n=n, R=2 * half, grid=given_grid).plant()
    p, q = given_grid or [half, half]
    assert plant["grid"] == [p, q]
    assert plant["chips"] == p * q * m * m and plant["rails_per_axis"] == m * n
    assert plant["switches"] == m * n * (p + q)
