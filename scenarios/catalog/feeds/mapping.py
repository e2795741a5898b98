"""The `--mapping` file for generic CSV, JSONL and Parquet sources: which column holds what.

    id: sku                 # required
    title: name             # required
    price: price_usd        # required; "15.00 USD", or a bare number with `currency`
    currency: USD           # the currency of bare-number prices
    brand: maker
    category: section       # a path like "Kitchen > Knives" (`category_separator` splits it)
    category_separator: ">"
    description: blurb      # HTML is reduced to text
    group: family           # rows sharing it are variants of one product
    stock: qty
    availability: avail     # in_stock / out_of_stock ..., when there is no stock count
    rating: stars           # 0..5
    rating_count: reviews
    ship_days: days_to_ship
    attributes: [colour, blade_length]          # a list, or {attribute name: column}
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from verishop.scenarios.catalog.feeds import MappingError


class Mapping(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    title: str
    price: str
    currency: str | None = None
    brand: str | None = None
    category: str | None = None
    category_separator: str = ">"
    description: str | None = None
    group: str | None = None
    sale_price: str | None = None
    stock: str | None = None
    availability: str | None = None
    rating: str | None = None
    rating_count: str | None = None
    ship_days: str | None = None
    attributes: dict[str, str] = {}

    @field_validator("attributes", mode="before")
    @classmethod
    def _list_means_same_name(cls, value: object) -> object:
        if isinstance(value, list):
            return {str(v): str(v) for v in value}
        return value or {}

    @field_validator("currency")
    @classmethod
    def _currency_code(cls, value: str | None) -> str | None:
        if value is not None and not (len(value) == 3 and value.isalpha()):
            raise ValueError(f"{value!r} is not a three-letter currency code")
        return value.upper() if value else value

    def columns(self) -> set[str]:
        named = {self.id, self.title, self.price, self.brand, self.category, self.description, self.group,
                 self.sale_price, self.stock, self.availability, self.rating, self.rating_count, self.ship_days}
        return {c for c in named if c} | set(self.attributes.values())


def describe_errors(error: ValidationError, source: str) -> str:
    lines = []
    for e in error.errors():
        key = ".".join(str(p) for p in e["loc"]) or "(top level)"
        message = "unknown key" if e["type"] == "extra_forbidden" else e["msg"].removeprefix("Value error, ")
        lines.append(f"{source}: {key}: {message}")
    return "\n".join(lines)


class _NoAliasLoader(yaml.SafeLoader):
    """YAML without aliases: a handful of nested `*alias` lines stands for billions of values (a
    'billion laughs'), which validation would walk; no mapping or policy file needs one."""

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, f"an alias (*{event.anchor}) is not allowed here: "
                                              "write the value out", event.start_mark)
        return super().compose_node(parent, index)


# Mapping and policy files are a few hundred bytes; a larger one is not one of them.
MAX_YAML_BYTES = 1 << 20


def load_yaml(path: Path, error: type[Exception]) -> object:
    try:
        with open(path, "rb") as stream:
            raw = stream.read(MAX_YAML_BYTES + 1)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot be read: {exc}") from None
    if len(raw) > MAX_YAML_BYTES:
        raise error(f"{path}: larger than {MAX_YAML_BYTES:,} bytes; not a mapping or policy file")
    try:
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        raise error(f"{path}: not valid YAML: {exc}") from None
    except RecursionError:
        raise error(f"{path}: nested too deeply to be a mapping or policy file") from None
    except ValueError as exc:  # an integer of more digits than Python converts (sys.int_info)
        raise error(f"{path}: a number has too many digits: {exc}".split("; use sys.")[0]) from None


def load_mapping(path: Path) -> Mapping:
    data = load_yaml(path, MappingError)
    if not isinstance(data, dict):
        raise MappingError(f"{path}: expected a mapping of keys (id, title, price ...), got {type(data).__name__}")
    try:
        return Mapping.model_validate(data)
    except ValidationError as exc:
        raise MappingError(describe_errors(exc, str(path))) from None
