"""Safe messages (issue 25, item 6) across railx's inputs: a name, id, key or argument echoed into
an error passes through railx.messages.shown (quoted, escaped, shortened) or shown_name (the same,
unquoted, for a key or name), so whatever a file or an argument holds (newlines, ANSI colours,
OSC titles, C1 controls, a forged `OK` line, 10 MB of text) the error is one printable line of
bounded length. Each site below puts a crafted value where a file or an argument holds a name,
and the property is asserted of the error the Python API raises (the CLI prints the same
text through railx.messages.one_line)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES
from railx._core import RailxError
from railx.collectives.sipco import parse_cus
from railx.config import load_config
from railx.libra.constraints import parse_constraints
from railx.messages import MAX_SHOWN_CHARS, shown, shown_name
from railx.network import realize, verify_ocs_file
from railx.overrides import parse_override
from railx.sweep.spec import load_spec
from railx.workload.catalogue import parse_model
from railx.workload.jobs import load_job

HYPERX = EXAMPLES / "hyperx-5x5.toml"
MODEL = Path(__file__).resolve().parents[1] / "python/railx/workload/models/gpt-1t.toml"
JOB = Path(__file__).resolve().parents[1] / "python/railx/workload/jobs/deepspeed-moe-1.3b.toml"

# Newlines, ANSI colour and OSC title sequences, C1 and NUL controls, a line separator, a forged
# success line.
FORGERIES = ["\n", "\r", "\x1b[32m", "\x1b]0;title\x07", "\x9b", "\x00", "\x7f", "\u2028", "\nOK all good\n"]
# The longest message a crafted value may give: the message's own text and one shown value.
MAX_ERROR_CHARS = 600


def toml_string(text: str) -> str:
    """`text` as a TOML basic string (control characters and DEL escaped)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _preset(value: str, tmp: Path) -> None:
    path = tmp / "c.toml"
    path.write_text(HYPERX.read_text().replace('"hyperx"', toml_string(value), 1))
    load_config(path)


def _config_key(value: str, tmp: Path) -> None:
    path = tmp / "c.toml"
    path.write_text(HYPERX.read_text().replace("[system]\n", f"[system]\n{toml_string(value)} = 1\n", 1))
    load_config(path)


def _spec(body: str, tmp: Path, analysis: str = '"plan"') -> None:
    path = tmp / "s.toml"
    path.write_text(f'[sweep]\nname = "s"\nanalysis = {analysis}\n{body}')
    load_spec(path)


def _sweep_key(value: str, tmp: Path) -> None:
    _spec(f"{toml_string(value)} = 1\n", tmp)


def _sweep_analysis(value: str, tmp: Path) -> None:
    _spec("", tmp, toml_string(value))


def _axis_path(value: str, tmp: Path) -> None:
    _spec(f'base = "{HYPERX}"\n[[axis]]\ngrid = {{ {toml_string(value)} = [1, 2] }}\n', tmp)


def _job_name(value: str, tmp: Path) -> None:
    text = JOB.read_text().replace("global_batch = { value = 512", "global_batch = { value = 513")
    path = tmp / "job.toml"
    path.write_text(
        f"name = {toml_string(value)}\n" + "\n".join(t for t in text.splitlines() if not t.startswith("name"))
    )
    load_job(path).parallelism()


def _model_name(value: str, tmp: Path) -> None:
    text = MODEL.read_text().replace("kv_heads = { value = 160", "kv_heads = { value = 7")
    lines = [t for t in text.splitlines() if not t.startswith("name")]
    parse_model(f"name = {toml_string(value)}\n" + "\n".join(lines), "model.toml")


def _constraint(value: str, tmp: Path) -> None:
    parse_constraints(f"constraints = [{toml_string(value)}]", "c.toml", 3)


def _constraints_key(value: str, tmp: Path) -> None:
    parse_constraints(f"{toml_string(value)} = 1", "c.toml", 3)


def _ocs_id(value: str, tmp: Path) -> None:
    document = json.loads(realize(HYPERX).ocs_files()[0][1])
    document["switches"][0]["id"] = value
    path = tmp / "x.ocs.json"
    path.write_text(json.dumps(document))
    verify_ocs_file(path)


def _cus_argument(value: str, tmp: Path) -> None:
    parse_cus(value, 64)


def _override_argument(value: str, tmp: Path) -> None:
    parse_override(value.replace("=", ""))


SITES: dict[str, Callable[[str, Path], None]] = {
    "config topology.preset": _preset,
    "config key": _config_key,
    "sweep key": _sweep_key,
    "sweep analysis": _sweep_analysis,
    "sweep axis path": _axis_path,
    "job name": _job_name,
    "model name": _model_name,
    "LIBRA constraint": _constraint,
    "LIBRA constraints key": _constraints_key,
    "OCS switch id": _ocs_id,
    "--cus argument": _cus_argument,
    "override argument": _override_argument,
}

# A crafted value: any text, a forgery, then nothing, a few hundred characters or 10 MB.
CRAFTED = st.builds(
    lambda head, forgery, length: head + forgery + "A" * length,
    st.text(max_size=12),
    st.sampled_from(FORGERIES),
    st.sampled_from([0, 300, 10_000_000]),
)


def assert_safe(message: str, value: str) -> None:
    """One printable line, short whatever `value`'s length, saying how long a long value was."""
    assert message.isprintable(), repr(message[:300])
    assert len(message) < MAX_ERROR_CHARS, (len(message), message[:300])
    if len(value) > 10_000 and value[:MAX_SHOWN_CHARS] in message:
        assert f"({len(value):,} chars)" in message, message[:300]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(site=st.sampled_from(sorted(SITES)), value=CRAFTED)
def test_a_crafted_name_gives_one_short_escaped_line(site: str, value: str, tmp_path: Path) -> None:
    with pytest.raises(RailxError) as info:
        SITES[site](value, tmp_path)
    assert_safe(str(info.value), value)


@pytest.mark.parametrize("site", sorted(SITES))
def test_each_site_echoes_a_forged_line_escaped(site: str, tmp_path: Path) -> None:
    """Every site shows the crafted value (so the property above is not met by leaving it out),
    escaped: the forged line is visible as text, never as a line of its own."""
    value = "x\x1b[32m\nOK all good"
    with pytest.raises(RailxError) as info:
        SITES[site](value, tmp_path)
    message = str(info.value)
    assert_safe(message, value)
    assert r"\x1b[32m\nOK all good" in message or r"\u{1b}[32m\nOK all good" in message, message


def test_shown_name_escapes_and_shortens_without_quotes() -> None:
    assert shown_name("options.size") == "options.size"
    assert shown_name("a\nb\x1b") == r"a\nb\x1b"
    assert shown_name("A" * 10_000_000) == f"{'A' * MAX_SHOWN_CHARS}… (10,000,000 chars)"
    assert shown("A" * 10) == repr("A" * 10)
