"""Realistic Shopify products exports for the import tests (issue 30), written from a seed.

Shaped like the exports shops really produce: one row per variant, the product's own fields and its
option *names* on its first row only, extra image-only rows; about three quarters of the products
come in variants on one or two options (Size, Colour ...), the rest are Shopify's single
"Title / Default Title" variant; option names differ between products for the same thing ("Size" /
"Shoe size", "Color" / "Colour"); some products have no Vendor; one type has every price equal;
some titles keep HTML. Nothing here reads the network or the wall clock."""

from __future__ import annotations

import csv
import random
from pathlib import Path

HEADER = ("Handle", "Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Tags", "Published",
          "Option1 Name", "Option1 Value", "Option2 Name", "Option2 Value", "Option3 Name", "Option3 Value",
          "Variant SKU", "Variant Inventory Tracker", "Variant Inventory Qty", "Variant Price",
          "Variant Compare At Price", "Image Src", "Status")

SIZES = ("XS", "S", "M", "L", "XL")
SHOE_SIZES = ("38", "39", "40", "41", "42", "43")
COLOURS = ("Black", "White", "Navy", "Olive", "Rust", "Sand")
SCENTS = ("Cedar", "Fig", "Lavender", "Amber")
# Type -> (options a product of it may vary on as (names, values), share of products with variants,
# price range in dollars (equal bounds: every product the same price)).
TYPES: dict[str, tuple[tuple[tuple[tuple[str, ...], tuple[str, ...]], ...], float, tuple[int, int]]] = {
    "T-Shirts": (((("Size",), SIZES), (("Color", "Colour"), COLOURS)), 0.9, (18, 40)),
    "Sneakers": (((("Size", "Shoe size", "Shoe Size"), SHOE_SIZES),), 0.85, (60, 160)),
    "Hats": (((("Color", "Colour"), COLOURS),), 0.7, (15, 45)),
    "Candles": (((("Scent",), SCENTS),), 0.5, (12, 30)),
    "Mugs": ((), 0.0, (14, 14)),
    "Posters": ((), 0.0, (20, 60)),
}
BRANDS = ("Northfold", "Wren & Pike", "Marlow", "Tidewater", "Oakhaven")
NOUNS = {"T-Shirts": "Tee", "Sneakers": "Runner", "Hats": "Cap", "Candles": "Candle", "Mugs": "Mug",
         "Posters": "Print"}
ADJECTIVES = ("Classic", "Harbor", "Summit", "Meadow", "Coastal", "Vintage", "Urban", "Alpine", "Field", "Dune")


def write_shopify_export(path: Path, seed: int, products: int = 120, *, useless_type: str | None = None,
                         kinds: tuple[str, ...] = tuple(TYPES)) -> Path:
    """Write a products export of `products` products (spread over `kinds`, by default every type
    of TYPES) to `path`.

    With `useless_type`, every product's Type is that one word (a shop that never filled it in
    properly) and only its Product Category, when set, names the kind."""
    rng = random.Random(seed)
    rows: list[dict[str, str]] = []
    kinds = list(kinds)
    for n in range(products):
        kind = kinds[n % len(kinds)]
        options, p_variants, (low, high) = TYPES[kind]
        brand = rng.choice(BRANDS) if rng.random() < 0.8 else ""
        name = f"{rng.choice(ADJECTIVES)} {NOUNS[kind]} {n + 1}"
        title = (f"<b>{name}</b>" if rng.random() < 0.1
                 else f"{brand} {name}" if brand and rng.random() < 0.2 else name)
        price = f"{low}.00" if low == high else f"{rng.randint(low, high)}.{rng.choice(('00', '50', '99'))}"
        chosen: list[tuple[str, tuple[str, ...]]] = []
        if options and rng.random() < p_variants:
            for names, values in options[: rng.choice((1, len(options)))]:
                chosen.append((rng.choice(names), tuple(rng.sample(values, rng.randint(2, min(4, len(values)))))))
        combos = [()]
        for _, values in chosen:
            combos = [c + (v,) for c in combos for v in values]
        handle = f"{name.lower().replace(' ', '-')}"
        category = "" if useless_type is None or rng.random() < 0.3 else f"Apparel & Accessories > {kind}"
        for i, combo in enumerate(combos):
            row = dict.fromkeys(HEADER, "")
            row.update({"Handle": handle, "Variant SKU": f"SX-{n:03d}-{i}", "Variant Price": price,
                        "Variant Inventory Tracker": "shopify", "Variant Inventory Qty": str(rng.randint(0, 40)),
                        "Image Src": f"https://cdn.example/{handle}-{i}.jpg"})
            if i == 0:
                row.update({"Title": title, "Body (HTML)": f"<p>The <em>{name}</em>, made to last.</p>",
                            "Vendor": brand, "Type": useless_type or kind, "Product Category": category,
                            "Published": "TRUE", "Status": "active"})
                if chosen:
                    for k, (option_name, _) in enumerate(chosen, start=1):
                        row[f"Option{k} Name"] = option_name
                else:
                    row["Option1 Name"] = "Title"
            if chosen:
                for k, value in enumerate(combo, start=1):
                    row[f"Option{k} Value"] = value
            else:
                row["Option1 Value"] = "Default Title"
            rows.append(row)
        if rng.random() < 0.5:  # an extra image of the product, on a row of its own
            image = f"https://cdn.example/{handle}-x.jpg"
            rows.append(dict(dict.fromkeys(HEADER, ""), Handle=handle, **{"Image Src": image}))
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=HEADER)
        writer.writeheader()
        writer.writerows(rows)
    return path
