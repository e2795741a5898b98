"""`verishop catalog build` and `verishop generate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from verishop.scenarios.catalog.build import build_catalog
from verishop.scenarios.catalog.cache import DEFAULT_SEED, DEFAULT_SIZE, catalog_path, verishop_home
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.envs import generate as generate_scenario
from verishop.scenarios.envs import get_env

catalog_app = typer.Typer(help="Build and inspect product catalogs.", no_args_is_help=True)

CatalogOption = Annotated[Path | None, typer.Option("--catalog", help="Catalog file (default: the cached one).")]


@catalog_app.command("build")
def build(
    size: Annotated[int, typer.Option(min=1, help="Number of products.")] = DEFAULT_SIZE,
    seed: Annotated[int, typer.Option(min=0, help="Catalog seed.")] = DEFAULT_SEED,
    out: Annotated[Path | None, typer.Option(help="Output file (default: the cache folder).")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Generator processes (default: 2).")] = None,
) -> None:
    """Generate a catalog of SIZE products from SEED (same inputs, same content, every machine)."""
    from verishop.scenarios.console import build_progress, err

    target = out or catalog_path(verishop_home(), size, seed)
    with build_progress() as progress:
        task = progress.add_task("catalog", total=size)
        result = build_catalog(target, size=size, seed=seed, workers=workers,
                               on_progress=lambda n: progress.advance(task, n))
    err.print(f"built {result.size:,} products in {result.seconds:.1f}s -> {result.path}\n"
              f"content hash {result.content_hash}")


# `catalog import` exit statuses (docs/catalog-import.md): 0 every row imported; 3 the catalog was
# written and some rows were refused; 2 nothing was written.
EXIT_REFUSED_ROWS = 3
EXIT_NOTHING_WRITTEN = 2


@catalog_app.command("import")
def import_(
    sources: Annotated[list[Path], typer.Argument(help="Feed files, read in order (one format).")],
    out: Annotated[Path, typer.Option("--out", help="The catalog file to write.")],
    feed_format: Annotated[str | None, typer.Option("--format", help="merchant-tsv, merchant-xml, shopify, csv, "
                                                    "jsonl or parquet (default: detected).")] = None,
    mapping: Annotated[Path | None, typer.Option(help="Column mapping (YAML) for csv, jsonl and parquet.")] = None,
    policy: Annotated[Path | None, typer.Option(help="The shop's policy (YAML), replacing the generated one.")] = None,
    strict: Annotated[bool, typer.Option(help="Refuse the whole import on the first bad row.")] = False,
    currency: Annotated[str | None, typer.Option(help="Currency of prices stated without one.")] = None,
    report: Annotated[Path | None, typer.Option(help="Also write the report as JSON here.")] = None,
) -> None:
    """Import a shop's product feed (and policy) into a catalog every environment runs on."""
    import json

    from verishop.scenarios.catalog.feeds import ImportFailed
    from verishop.scenarios.catalog.feeds.run import run_import
    from verishop.scenarios.catalog.feeds.support import table_lines
    from verishop.scenarios.console import build_progress, err

    try:
        with build_progress() as progress:
            task = progress.add_task("import", total=None)
            result = run_import(sources, out, feed_format=feed_format, mapping=mapping, policy=policy,
                                strict=strict, currency=currency, on_progress=lambda n: progress.advance(task, n),
                                environments=True)
    except ImportFailed as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_NOTHING_WRITTEN) from None
    for line in result.refusals:
        err.print(f"refused {line}", markup=False, highlight=False, soft_wrap=True)
    if result.refused > len(result.refusals):
        err.print(f"... and {result.refused - len(result.refusals):,} more refused rows", markup=False)
    for name, text in result.defaults.items():
        err.print(f"absent: {name}: {text} (no environment constrains on it)" if name != "stock"
                  else f"default: stock: {text}", markup=False, highlight=False, soft_wrap=True)
    for line in result.merged_attributes:
        err.print(f"merged attribute names: {line}", markup=False, highlight=False, soft_wrap=True)
    dropped = [c for c in result.attribute_coverage if not c["kept"]]
    if dropped:
        err.print(f"attributes stated by too few products of their category (fewer than a third), left out: "
                  + ", ".join(f"{c['category']}.{c['attribute']} ({c['products']} of {c['of']})" for c in dropped[:20])
                  + (f" and {len(dropped) - 20} more" if len(dropped) > 20 else ""),
                  markup=False, highlight=False, soft_wrap=True)
    if result.variant_groups:
        rows = result.variant_groups
        two = [f"{r['category']} ({', '.join(r['options'])})" for r in rows if len(r["options"]) > 1]
        err.print(f"variant groups: {sum(r['one_option'] for r in rows):,} differ on one option, "
                  f"{sum(r['two_options'] for r in rows):,} on two, {sum(r['more_options'] for r in rows):,} on more"
                  + (f"; categories with two options: {', '.join(two[:20])}" + (" ..." if len(two) > 20 else "")
                     if two else ""), markup=False, highlight=False, soft_wrap=True)
    for line in result.warnings:
        err.print(f"warning: {line}", markup=False, highlight=False, soft_wrap=True)
    err.print("environments:", markup=False)
    for line in table_lines(result.environments):
        err.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    err.print(f"{result.summary()} into {result.categories} categories in {result.seconds:.1f}s -> {result.path}\n"
              f"content hash {result.content_hash}", markup=False, highlight=False, soft_wrap=True)
    if report is not None:
        report.write_text(json.dumps({
            "path": str(result.path), "imported": result.imported, "merged": result.merged,
            "refused": result.refused, "refusals": result.refusals, "absent_fields": result.absent_fields,
            "defaults": result.defaults, "categories": result.categories, "content_hash": result.content_hash,
            "merged_attributes": result.merged_attributes, "attribute_coverage": result.attribute_coverage,
            "variant_groups": result.variant_groups, "unreadable_stock": result.unreadable_stock,
            "warnings": result.warnings,
            "environments": result.environments,
        }, indent=2))
    if result.refused:
        raise typer.Exit(EXIT_REFUSED_ROWS)


@catalog_app.command("info")
def info(path: Annotated[Path, typer.Argument(help="Catalog file.")]) -> None:
    """Print a catalog's metadata."""
    with CatalogReader(path) as catalog:
        for key, value in sorted(catalog.meta.items()):
            typer.echo(f"{key}: {value}")


@catalog_app.command("verify")
def verify(
    path: Annotated[Path, typer.Argument(help="Catalog file.")],
    expect: Annotated[str | None, typer.Option(help="The content hash this file must have (as printed by "
                                                    "`catalog build` or `catalog info`).")] = None,
) -> None:
    """Hash a catalog's products again and check them against its recorded content hash (and
    --expect): a copy from another machine is the catalog it claims to be. Exit code 2 if not."""
    from verishop.scenarios.console import checked_catalog, err

    verified = checked_catalog(path, expect, trust_stamp=False)
    err.print(f"ok: {path} (seed={verified.seed}, size={verified.size:,}) content hash {verified.content_hash}",
              markup=False, highlight=False, soft_wrap=True)


def generate(
    env: Annotated[str, typer.Option(help="Environment id or short name, e.g. pd.")] = "pd",
    difficulty: Annotated[int, typer.Option(min=0, max=MAX_DIFFICULTY)] = 0,
    seed: Annotated[int, typer.Option(min=0, help="The seed, or with --split the episode's index in it.")] = 0,
    catalog: CatalogOption = None,
    split: Annotated[str | None, typer.Option(help="train, dev or test: --seed is an index into the split.")]
    = None,
    split_secret: Annotated[str | None, typer.Option(envvar="VERISHOP_SPLIT_SECRET", show_envvar=True,
                                                     help="The private test split's secret.")] = None,
    voice: Annotated[str | None, typer.Option(help="The customer's voice instead of the one drawn from the seed "
                                                   "(plain, terse, chatty, formal, non-native, typo-prone, "
                                                   "impatient, vague-then-precise).")] = None,
) -> None:
    """Print the scenario for (ENV, DIFFICULTY, SEED) as JSON, hidden goal included."""
    from verishop.scenarios.console import resolve_catalog
    from verishop.scenarios.splits import SplitError, split_seed

    try:
        get_env(env)
    except KeyError as exc:
        raise typer.BadParameter(str(exc.args[0]), param_hint="--env") from None
    if split is not None:
        try:
            seed = split_seed(split, env, difficulty, seed, split_secret)
        except SplitError as exc:
            raise typer.BadParameter(str(exc), param_hint="--split") from None
    with CatalogReader(resolve_catalog(catalog)) as reader:
        try:
            scenario = generate_scenario(env, difficulty, seed, reader, voice=voice)
        except ValueError as exc:  # an unknown voice, or one a plain-voiced version does not speak
            raise typer.BadParameter(str(exc), param_hint="--voice") from None
        typer.echo(scenario.to_json())
