"""One Python API (issue 24, item 7): every analysis takes the same system objects, `import railx`
reaches every subpackage lazily, settings use the CLI's names, and a network converts to
networkx."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import tomllib
from tests.conftest import REPO

import railx
from railx.collectives.commands import collective_report
from railx.cost.catalog import load_catalog
from railx.cost.model import figures
from railx.flowsim import collective
from railx.routing import check_deadlock, route_stats
from railx.sim import FlitSettings, simulate

CONFIG = REPO / "examples" / "hyperx-5x5.toml"
PEER = REPO / "examples" / "peers" / "hyperx.toml"


def test_import_railx_leaves_the_subpackages_for_their_first_use() -> None:
    code = (
        "import sys, railx; "
        "print(sorted(m for m in ('railx.cost', 'railx.sim', 'railx.workload', 'railx.sweep') if m in sys.modules)); "
        "print(len(railx.cost.table6()), 'railx.cost' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "12 True"  # Table 6's twelve rows, railx.cost imported by the attribute access


def test_every_subpackage_is_an_attribute() -> None:
    for name in railx.SUBMODULES:
        assert getattr(railx, name).__name__ == f"railx.{name}"
        assert name in dir(railx)
    with pytest.raises(AttributeError, match="has no attribute 'costs'"):
        railx.costs  # noqa: B018


@pytest.fixture(scope="module")
def network() -> railx.Network:
    return railx.realize(CONFIG)


def test_a_network_path_and_name_resolve_to_one_system(network: railx.Network) -> None:
    system = railx.System.resolve(network)
    assert system.core is network.core  # shares the network already built
    assert railx.System.resolve(network) is system
    assert system.bom() == railx.System.resolve(CONFIG).bom() == railx.System.resolve(str(CONFIG)).bom()
    assert railx.System.resolve(PEER).chips == railx.System.resolve(str(PEER)).chips == 64
    with pytest.raises(railx.ConfigError, match="carries no specification"):
        railx.System.resolve(network.core)


@pytest.mark.parametrize("form", ["network", "system", "path", "str"])
def test_every_analysis_takes_every_form_of_a_system(network: railx.Network, form: str) -> None:
    """Routing, collectives (analytic and flow level), the flit level and cost each give the
    same answer for a realized network, its railx.System, its file as a Path and as a string."""
    system = {"network": network, "system": railx.System.resolve(CONFIG), "path": CONFIG, "str": str(CONFIG)}[form]
    catalog = load_catalog("railx-table6")
    reference = railx.System.resolve(CONFIG)
    assert route_stats(system)["pairs"] == route_stats(reference)["pairs"]
    assert check_deadlock(system)["acyclic"]
    size = 1 << 20
    assert collective_report(system, "all-reduce", "ring", size)["time_s"] == pytest.approx(
        collective_report(reference, "all-reduce", "ring", size)["time_s"]
    )
    assert collective(system, "all-reduce", "ring", size).completion_s == pytest.approx(
        collective(reference, "all-reduce", "ring", size).completion_s
    )
    settings = FlitSettings(warmup_cycles=20, measure_cycles=50)
    assert (
        simulate(system, "uniform", 0.05, settings=settings)[0]
        == simulate(reference, "uniform", 0.05, settings=settings)[0]
    )
    assert figures(system, catalog)["cost_usd"] == figures(reference, catalog)["cost_usd"]


def test_to_networkx_has_every_link_and_chip(network: railx.Network) -> None:
    graph = network.to_networkx()
    links = network.links()
    assert graph.number_of_nodes() == network.chips == 100
    assert graph.number_of_edges() == len(links["src"])
    assert Counter(dict(graph.out_degree())) == Counter(dict(zip(*np.unique(links["src"], return_counts=True))))
    assert Counter(dict(graph.in_degree())) == Counter(dict(zip(*np.unique(links["dst"], return_counts=True))))
    optical = [d for _, _, d in graph.edges(data=True) if d["class"] == "inter-node-optical"]
    assert len(optical) == int((links["class"] == 1).sum()) and all("rail" in d for d in optical)
    # Chip ids follow README.md, What the numbers mean: (Y*P + X)*m*m + y*m + x (m = 2, P = 5).
    for chip, d in graph.nodes(data=True):
        assert chip == (d["Y"] * 5 + d["X"]) * 4 + d["y"] * 2 + d["x"]


def test_to_networkx_matches_the_graphml_export(network: railx.Network, tmp_path: Path) -> None:
    networkx = pytest.importorskip("networkx")
    path = tmp_path / "net.graphml"
    network.write(path, "graphml")
    exported = networkx.read_graphml(path)
    ours = network.to_networkx()
    assert exported.number_of_edges() == ours.number_of_edges()
    assert sorted(d for _, d in exported.out_degree()) == sorted(d for _, d in ours.out_degree())


WORKLOAD_FILE = REPO / "examples" / "workloads" / "tpuv4-64.toml"


@pytest.mark.parametrize("form", ["workload-system", "workload-file", "system", "peer-file"])
def test_the_workload_model_takes_every_form_of_a_system(form: str, tmp_path: Path) -> None:
    """IterationModel and best_parallelism take what every other analysis takes (a railx.System,
    a realized Network, a system file) with the chip it runs on, as well as a WorkloadSystem or
    its file: the same system gives the same iteration time in every form."""
    from railx.workload import IterationModel, as_workload_system, load_model, load_workload_system
    from railx.workload.search import best_parallelism

    memory = "chip.memory_GB=80"  # for the parallelisation search
    workload_file = tmp_path / "tpuv4-64.toml"
    workload_file.write_text(WORKLOAD_FILE.read_text().replace("[chip]\n", "[chip]\nmemory_GB = 80\n"))
    document = tomllib.loads(workload_file.read_text())
    chip, training = document["chip"], document["training"]
    reference = load_workload_system(WORKLOAD_FILE, [memory])
    assert reference.chip == load_workload_system(workload_file).chip
    peer_file = tmp_path / "torus.toml"
    peer_file.write_text("[peer]\n" + "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in document["peer"].items()))
    system = railx.System("torus", "torus", peer=document["peer"])
    given = {
        "workload-system": (reference, {}),
        "workload-file": (str(workload_file), {}),
        "system": (system, {"chip": chip, "training": training}),
        "peer-file": (peer_file, {"chip": chip, "training": training}),
    }[form]
    model = load_model("llama3-70b-moe8")
    par = reference.parallelism(T=4, C=2, E=2, D=4, P=2)
    expected = float(IterationModel(model, par, reference).evaluate().total_s)
    it = IterationModel(model, par, given[0], **given[1])
    assert float(it.evaluate().total_s) == pytest.approx(expected, rel=1e-12)
    assert as_workload_system(given[0], **given[1]).chips == 64
    dense = load_model("llama3-70b")
    best = best_parallelism(dense, given[0], 512, **given[1])
    assert best.time_s == pytest.approx(best_parallelism(dense, reference, 512).time_s, rel=1e-12)


def test_a_realized_network_is_measured_as_it_is_built(network: railx.Network) -> None:
    from railx.workload import IterationModel, as_workload_system, load_model
    from railx.workload.traffic import Parallelism

    chip = {"sustained_tflops": 400}
    ws = as_workload_system(network, chip=chip)
    assert ws.network_system().core is network.core  # the network already built, shared
    par = Parallelism(T=4, D=25, micro_batches=4)
    model = load_model("llama3-70b")
    assert float(IterationModel(model, par, network, chip=chip).evaluate().total_s) == pytest.approx(
        float(IterationModel(model, par, CONFIG, chip=chip).evaluate().total_s), rel=1e-12
    )


@pytest.mark.parametrize(
    ("system", "kwargs", "message"),
    [
        ("tpuv4", {}, "chip: a workload on a system needs the chip's sustained throughput"),
        (WORKLOAD_FILE, {"chip": {"sustained_tflops": 3}}, "chip: the workload system already sets"),
        ("tpuv4", {"chip": {"sustained_tflops": -3}}, "chip.sustained_tflops = -3: Input should be greater than 0"),
        ("tpuv4", {"chip": {"sustained_tflops": 3}, "routing": "nope"}, "nope"),
    ],
)
def test_bad_workload_systems_are_one_line_errors(system: object, kwargs: dict, message: str) -> None:
    from railx.workload import as_workload_system, load_model
    from railx.workload.iteration import IterationModel
    from railx.workload.traffic import Parallelism

    with pytest.raises(railx.ConfigError, match=re.escape(message)):
        IterationModel(load_model("llama3-70b"), Parallelism(T=8, D=512), as_workload_system(system, **kwargs))
