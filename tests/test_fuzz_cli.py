"""Fuzzing the command line (issue 24, acceptance): hostile values for any option of a command,
and hostile `KEY=VALUE` overrides of any configuration field, end either in a normal run or in
one line on stderr (`error: ...`) and exit status 2; never a traceback, and never more memory
than the budget allows.

Each example is one command of the CLI with a short, valid base command line (so every run is
quick), to which hypothesis adds options drawn from the command's own options (read from the
CLI, so a new option is fuzzed without a change here) with hostile values, and overrides of
fields of its configuration. The runs share one process (conftest.run_railx) under a memory
budget (RAILX_MEMORY_BUDGET); the process's peak resident memory may not grow by more than the
budget and a margin in any example."""

from __future__ import annotations

import os
import resource
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import REPO, all_commands, run_railx

EXAMPLES = REPO / "examples"
HYPERX = str(EXAMPLES / "hyperx-5x5.toml")
JOBS = str(EXAMPLES / "jobs.toml")
FAILED = str(EXAMPLES / "failed.json")
WORKLOAD = (
    "llama3-70b-moe8",
    "--parallel",
    "T=4,C=2,E=2,D=4,P=2",
    "--system",
    str(EXAMPLES / "workloads/listing1.toml"),
)
LIBRA = (
    "--network",
    str(EXAMPLES / "libra/network-3d.yml"),
    "--workload",
    str(EXAMPLES / "libra/transformer.txt"),
    "--communicator",
    str(EXAMPLES / "libra/transformer-3d.yml"),
    "--cost",
    str(EXAMPLES / "libra/cost-3d.yml"),
    "--total-bw",
    "400",
)

# A quick, valid command line per command; the fuzzed options go after it.
BASES: dict[str, tuple[str, ...]] = {
    "plan": (HYPERX,),
    "ocs synth": (HYPERX, "--out", "ocs"),
    "network": (HYPERX, "--out", "net.json"),
    "availability": (JOBS, "--rate", "0.01", "--samples", "2"),
    "allocate": (JOBS, "--failed", FAILED, "--jobs", "all", "--out", "alloc"),
    "workload": WORKLOAD,
    "allocate-bw": WORKLOAD,
    "traffic": ("gpt-1t", "--parallel", "T=8,P=8,D=64", "--hb-domain", "256", "--global-batch", "4096"),
    "rail-failures": ("--hb-domain", "8", "--domains", "16"),
    "libra": LIBRA,
    "cost": ("ft2",),
    "scale": ("--radix", "64"),
    "route": (HYPERX, "--stats"),
    "collective": (HYPERX, "--size", "1MB"),
    "sim": (HYPERX, "--cycles", "50", "--warmup", "10"),
    "wavelengths": (str(EXAMPLES / "wavelengths/flex-sipac-jobs.toml"),),
    "multitenant": ("--cus", "64", "--job", "40", "--job", "24", "--size", "1MB"),
}

# Commands whose first argument is a configuration file KEY=VALUE overrides apply to (workload
# and allocate-bw: their --system file), and fields to aim at beside made-up ones.
FIELDS = (
    "system.m",
    "system.n",
    "system.R",
    "system.k",
    "system.grid",
    "system.port_bw_GBps",
    "topology.preset",
    "topology.x",
    "sim.load",
    "sim.cycles",
    "sim.traffic",
    "chip.sustained_tflops",
    "training.micro_batches",
    "mapping.T",
)
TAKES_OVERRIDES = ("plan", "ocs synth", "network", "availability", "route", "collective", "sim", "workload")

HOSTILE = st.sampled_from(
    ["nan", "inf", "-inf", "-1", "0", "1e999", "abc", "", "18446744073709551616", "=", "[1, 2]", "é", "../x"]
)
# Values as TOML reads them in an override: wrong types, out of range, huge, nested.
HOSTILE_TOML = st.sampled_from(
    ["-1", "0", "nan", "inf", "1e999", "18446744073709551616", '"abc"', "[]", "[0, 0]", "{a = 1}", "true", "1.5"]
)

BUDGET = 1 << 30  # RAILX_MEMORY_BUDGET during the fuzzing
MARGIN = 512 << 20  # what Python, NumPy and the outputs may add beyond the budgeted allocations


def _options(path: str) -> list[str]:
    """The options of command `path` that take a value (flags and --help left out)."""
    command = all_commands()[path]
    return [
        p.opts[0]
        for p in command.params
        if p.param_type_name == "option" and not p.is_flag and not p.hidden and p.opts[0] != "--help"
    ]


OPTIONS = {path: _options(path) for path in BASES}


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    path = draw(st.sampled_from(sorted(BASES)))
    argv = [*path.split(), *BASES[path]]
    if path in TAKES_OVERRIDES and draw(st.booleans()):
        key = draw(st.one_of(st.sampled_from(FIELDS), st.from_regex(r"[a-z]{1,6}(\.[a-z_]{1,8}){1,2}", fullmatch=True)))
        # Overrides sit right after the positional arguments (before any option).
        at = 2 if path == "workload" else len(path.split()) + 1
        argv[at:at] = [f"{key}={draw(HOSTILE_TOML)}"]
    options = st.lists(st.sampled_from(OPTIONS[path]), max_size=2, unique=True) if OPTIONS[path] else st.just([])
    for option in draw(options):
        argv += [option, draw(HOSTILE)]
    return argv


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=command_lines())
def test_hostile_command_lines_end_in_one_line_or_a_run(argv: list[str]) -> None:
    saved = os.environ.get("RAILX_MEMORY_BUDGET")
    os.environ["RAILX_MEMORY_BUDGET"] = str(BUDGET)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    try:
        with tempfile.TemporaryDirectory() as tmp:
            result = run_railx(*argv, cwd=Path(tmp))
    finally:
        if saved is None:
            del os.environ["RAILX_MEMORY_BUDGET"]
        else:
            os.environ["RAILX_MEMORY_BUDGET"] = saved
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    assert "Traceback" not in result.stderr, (argv, result.stderr)
    assert result.rc in (0, 2), (argv, result)
    if result.rc == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (argv, result.stderr)
    assert grown <= BUDGET + MARGIN, (argv, grown)
