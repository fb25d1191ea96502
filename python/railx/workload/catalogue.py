"""The model catalogue: transformer shapes as data files, one per model, every value with its source.

A model file (TOML) has a `name` and, for each field of :class:`ModelSpec`, a table
`{ value = ..., source = "..." }`. Shipped models live in `railx/workload/models/<key>.toml`;
any other file can be given by path.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from railx.config import ConfigError, read_text
from railx.files import parse_toml
from railx.messages import shown, shown_name

__all__ = ["ModelSpec", "SourcedInt", "available_models", "load_model", "parse_model"]

MODELS_DIR = Path(__file__).with_name("models")


class SourcedInt(BaseModel):
    """A number and where it comes from."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    value: int = Field(gt=0)
    source: str = Field(min_length=1)


class ModelSpec(BaseModel):
    """A transformer's shape as Table 4 of the RailX paper uses it (docs/workloads.md, Models).

    `ffn` is the FFN (or per-expert) intermediate width I; `ffn_matrices` its weight matrices
    (3 for SwiGLU, 2 for a GELU MLP; Table 4 assumes 3); `experts` = 1 and `top_k` = 1 mean dense.
    `moe_layer_interval` = i makes every i-th layer an MoE layer and the others dense (1: every
    layer; DeepSpeed-MoE uses 2); it is 1 for dense models."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    name: str = Field(min_length=1)
    layers: SourcedInt
    hidden: SourcedInt
    heads: SourcedInt
    kv_heads: SourcedInt
    ffn: SourcedInt
    ffn_matrices: SourcedInt
    vocab: SourcedInt
    experts: SourcedInt
    top_k: SourcedInt
    moe_layer_interval: SourcedInt

    def values(self) -> dict[str, int]:
        """The numbers alone: {'layers': 80, 'hidden': 8192, ...}."""
        return {key: getattr(self, key).value for key in type(self).model_fields if key != "name"}

    @property
    def moe_fraction(self) -> float:
        """Share of the layers whose FFN is the experts (1/moe_layer_interval; 1 for dense models,
        whose single "expert" is the dense FFN)."""
        return 1.0 / self.moe_layer_interval.value

    def parameter_count(self) -> int:
        """Weights in the Table 4 shape: per layer Q, K, V, O projections and every expert's FFN
        (one FFN in the dense layers between MoE layers), plus input embedding and output head
        (norms and routers neglected)."""
        v = self.values()
        attention = v["hidden"] ** 2 * (2 + 2 * v["kv_heads"] / v["heads"])
        one_ffn = v["ffn_matrices"] * v["hidden"] * v["ffn"]
        ffn = one_ffn * (v["experts"] * self.moe_fraction + (1 - self.moe_fraction))
        return int(v["layers"] * (attention + ffn) + 2 * v["vocab"] * v["hidden"])

    def check(self) -> None:
        """Cross-field rules: heads divisible by KV heads, top_k <= experts, 2 or 3 FFN matrices, MoE
        layer interval dividing the layers (and 1 for a dense model)."""
        v = self.values()
        if v["heads"] % v["kv_heads"]:
            raise ConfigError(
                f"{shown_name(self.name)}: heads = {v['heads']} must be a multiple of kv_heads = {v['kv_heads']} (grouped-query attention)"
            )
        if v["top_k"] > v["experts"]:
            raise ConfigError(
                f"{shown_name(self.name)}: top_k = {v['top_k']} must be <= experts = {v['experts']}; e.g. top_k = 1 for a dense model"
            )
        if v["ffn_matrices"] not in (2, 3):
            raise ConfigError(
                f"{shown_name(self.name)}: ffn_matrices = {v['ffn_matrices']} must be 3 (SwiGLU) or 2 (GELU MLP)"
            )
        interval = v["moe_layer_interval"]
        if v["layers"] % interval or (v["experts"] == 1 and interval != 1):
            raise ConfigError(
                f"{shown_name(self.name)}: moe_layer_interval = {interval} must divide layers = {v['layers']} "
                "(and be 1 for a dense model, experts = 1); e.g. moe_layer_interval = 1"
            )


def available_models() -> list[str]:
    """Keys of the shipped models (file names without .toml), sorted."""
    return sorted(p.stem for p in MODELS_DIR.glob("*.toml"))


def load_model(key_or_path: str | Path) -> ModelSpec:
    """A shipped model by key (e.g. `llama3-70b`) or a model file by path; validated."""
    path = Path(key_or_path)
    if path.suffix != ".toml":  # a key (keys may hold dots: moe-1.3b)
        path = MODELS_DIR / f"{key_or_path}.toml"
        if not path.is_file():
            raise ConfigError(
                f"model = {shown(str(key_or_path))}: unknown model key; shipped models are {', '.join(available_models())} (or give a .toml path)"
            )
    return parse_model(read_text(path, f"model = {shown(str(path))}"), str(path))


def parse_model(text: str, source: str) -> ModelSpec:
    """A model file's TOML text, validated (see :func:`load_model`); errors name `source`."""
    data = parse_toml(text, f"model = {shown(source)}")
    try:
        spec = ModelSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(part) for part in err["loc"])
        raise ConfigError(
            f'{source}: {field}: {err["msg"]}; each field is {{ value = <positive int>, source = "..." }}'
        ) from None
    spec.check()
    return spec
