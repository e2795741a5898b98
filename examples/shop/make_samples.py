"""Write the sample shop "Inkwell & Leaf" (stationery, tea and yarn: categories and attribute names
the generated taxonomy does not have) as a Google Merchant TSV feed, the same products as Merchant
RSS/XML and as a Shopify products CSV, plus a feed with bad rows for the import report.

    python examples/shop/make_samples.py    # rewrites the files beside this script

Deterministic: one seeded generator, so the committed files are what this script writes.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).parent
SEED = 21

# (path, brands, price range in cents, {attribute: values}, the variant attribute, products, nouns)
CATEGORIES = (
    ("Stationery > Pens > Fountain Pens", ("Ostrander", "Kessel & Ward", "Marlowe", "Penwright"), (2500, 22000),
     {"nib_size": ("EF", "F", "M", "B", "Stub"), "barrel_finish": ("Lacquer", "Resin", "Brushed Steel", "Celluloid"),
      "filling_system": ("Cartridge", "Piston", "Eyedropper", "Vacuum")}, "nib_size", 50, "Fountain Pen"),
    ("Stationery > Ink > Bottled Ink", ("Inkhaus", "Blackmoor", "Quillworth"), (900, 3500),
     {"ink_shade": ("Midnight Blue", "Oxblood", "Forest Green", "Sepia", "Jet Black", "Turquoise"),
      "bottle_volume": ("30 ml", "50 ml", "80 ml"), "sheen": ("None", "Red Sheen", "Gold Shimmer")},
     "ink_shade", 45, "Fountain Pen Ink"),
    ("Stationery > Paper > Notebooks", ("Folio & Co", "Papeterie Lune", "Gridline"), (800, 4200),
     {"ruling": ("Dot Grid", "Lined", "Blank", "Squared"), "page_size": ("A5", "A6", "B5", "Pocket"),
      "paper_weight": ("68 gsm", "80 gsm", "100 gsm", "120 gsm")}, "ruling", 50, "Notebook"),
    ("Tea > Loose Leaf Tea", ("Camellia House", "Steep & Co", "Highland Leaf"), (650, 4800),
     {"tea_style": ("Sencha", "Darjeeling", "Oolong", "Pu-erh", "Rooibos", "Earl Grey"),
      "origin": ("Japan", "India", "Taiwan", "China", "South Africa", "Sri Lanka"),
      "pouch_weight": ("50 g", "100 g", "250 g")}, "pouch_weight", 45, "Loose Leaf Tea"),
    ("Tea > Teaware > Teapots", ("Kiln & Kettle", "Tetsubin Works", "Glasshaus"), (1800, 16000),
     {"capacity": ("350 ml", "500 ml", "800 ml", "1.2 L"),
      "teapot_material": ("Cast Iron", "Yixing Clay", "Glass", "Porcelain")}, "capacity", 35, "Teapot"),
    ("Crafts > Yarn", ("Woolgather", "Fleece & Fold", "Northern Spin"), (550, 3200),
     {"fiber": ("Merino", "Alpaca", "Cotton", "Linen Blend", "Mohair"),
      "yarn_weight": ("Lace", "Fingering", "DK", "Worsted", "Bulky"),
      "colorway": ("Heather Grey", "Rust", "Moss", "Ocean", "Undyed")}, "colorway", 45, "Yarn"),
    ("Crafts > Knitting Needles", ("Birchpoint", "Loopcraft"), (700, 4500),
     {"needle_size": ("2.5 mm", "3 mm", "3.5 mm", "4 mm", "5 mm", "6 mm"),
      "needle_type": ("Circular", "Straight", "Double-Pointed"),
      "needle_material": ("Bamboo", "Birch", "Stainless Steel", "Carbon")}, "needle_size", 35, "Knitting Needles"),
    ("Crafts > Craft Knives", ("Edgemark", "Scalpel & Co"), (600, 3000),
     {"blade_type": ("Scalpel", "Snap-Off", "Hook"), "handle_grip": ("Aluminium", "Rubber")}, None, 10, "Craft Knife"),
)
CODES = ("FP", "INK", "NB", "TEA", "POT", "YRN", "NDL", "KNF")
WORDS = ("Heritage", "Studio", "Voyager", "Atelier", "Meridian", "Harbor", "Solstice", "Field", "Archive", "Ember")


def products(rng: random.Random) -> list[dict]:
    rows: list[dict] = []
    for (path, brands, (lo, hi), attributes, variant, count, noun), code in zip(CATEGORIES, CODES):
        made = 0
        while made < count:
            brand, line = rng.choice(brands), f"{rng.choice(WORDS)} {rng.randint(1, 9)}"
            base = {a: rng.choice(v) for a, v in attributes.items()}
            price = round(rng.uniform(lo, hi) / 50) * 50 - 1
            group = [None]
            if variant and rng.random() < 0.3:
                group = rng.sample(attributes[variant], min(len(attributes[variant]), rng.randint(2, 3), count - made))
            handle = f"{brand} {line} {noun}".lower().replace(" & ", "-").replace(" ", "-")
            for value in group:
                made += 1
                attrs = dict(base, **({variant: value} if value else {}))
                detail = " ".join(attrs[a] for a in attributes if attrs[a] != "None")
                rows.append({
                    "id": f"IW-{code}-{len(rows) + 1:04d}", "title": f"{brand} {line} {noun} {detail}",
                    "name": f"{brand} {line} {noun}",
                    "description": f"<p>The <b>{line}</b> {noun.lower()} by {brand}.</p><ul>"
                                   + "".join(f"<li>{a.replace('_', ' ')}: {v}</li>" for a, v in attrs.items()) + "</ul>",
                    "brand": brand, "path": path, "price_cents": price, "attrs": attrs,
                    "group": handle if value else "", "handle": handle if value else f"{handle}-{len(rows) + 1}",
                    "available": rng.random() > 0.08, "stock": 0 if rng.random() < 0.08 else rng.randint(1, 90),
                    "ship_days": rng.choice((1, 2, 2, 3, 4, 5)), "variant": variant if value else None,
                })
    return rows


def merchant_tsv(rows: list[dict], path: Path) -> None:
    header = ("id", "title", "description", "link", "availability", "price", "brand", "condition", "product_type",
              "item_group_id", "product_detail", "max_handling_time", "max_transit_time")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar="\\")
        w.writerow(header)
        for r in rows:
            w.writerow((r["id"], r["title"], r["description"], f"https://inkwell-leaf.example/p/{r['id']}",
                        "in_stock" if r["available"] else "out_of_stock", f"{r['price_cents'] / 100:.2f} USD",
                        r["brand"], "new", r["path"], r["group"],
                        ",".join(f"Details:{a.replace('_', ' ').title()}:{v}" for a, v in r["attrs"].items()),
                        1, r["ship_days"] - 1 if r["ship_days"] > 1 else 1))


def merchant_xml(rows: list[dict], path: Path) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">\n'
                "<channel><title>Inkwell &amp; Leaf</title><link>https://inkwell-leaf.example</link>\n")
        for r in rows:
            details = "".join(f"<g:product_detail><g:section_name>Details</g:section_name><g:attribute_name>"
                              f"{escape(a.replace('_', ' ').title())}</g:attribute_name><g:attribute_value>{escape(v)}"
                              f"</g:attribute_value></g:product_detail>" for a, v in r["attrs"].items())
            group = f"<g:item_group_id>{escape(r['group'])}</g:item_group_id>" if r["group"] else ""
            f.write(f"<item><g:id>{r['id']}</g:id><title>{escape(r['title'])}</title>"
                    f"<description>{escape(r['description'])}</description>"
                    f"<g:availability>{'in_stock' if r['available'] else 'out_of_stock'}</g:availability>"
                    f"<g:price>{r['price_cents'] / 100:.2f} USD</g:price><g:brand>{escape(r['brand'])}</g:brand>"
                    f"<g:product_type>{escape(r['path'])}</g:product_type>{group}{details}"
                    f"<g:shipping><g:country>US</g:country><g:max_handling_time>1</g:max_handling_time>"
                    f"<g:max_transit_time>{max(1, r['ship_days'] - 1)}</g:max_transit_time></g:shipping></item>\n")
        f.write("</channel></rss>\n")


def shopify_csv(rows: list[dict], path: Path) -> None:
    header = ("Handle", "Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Tags", "Published",
              "Option1 Name", "Option1 Value", "Option2 Name", "Option2 Value", "Option3 Name", "Option3 Value",
              "Variant SKU", "Variant Inventory Tracker", "Variant Inventory Qty", "Variant Price",
              "Variant Compare At Price", "Image Src", "Status")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        previous = None
        for r in rows:
            names = sorted(r["attrs"], key=lambda a: a != r["variant"])[:3]
            first = r["handle"] != previous
            title = r["name"]  # Shopify's title names the product; the options name the variant
            option_cells = []
            for n in range(3):
                name = names[n].replace("_", " ").title() if n < len(names) else ""
                option_cells += [name if first else "", r["attrs"][names[n]] if n < len(names) else ""]
            w.writerow((r["handle"], title if first else "", r["description"] if first else "",
                        r["brand"] if first else "", r["path"] if first else "",
                        r["path"].split(" > ")[-1] if first else "", "", "TRUE" if first else "", *option_cells,
                        r["id"], "shopify", r["stock"], f"{r['price_cents'] / 100:.2f}", "",
                        f"https://cdn.example/{r['id']}.jpg", "active" if first else ""))
            if first:  # an image-only row, as Shopify writes for a product's second image
                w.writerow((r["handle"], *[""] * 18, f"https://cdn.example/{r['id']}-2.jpg", ""))
            previous = r["handle"]


BAD_ROWS = """id\ttitle\tavailability\tprice\tbrand\tproduct_type
IW-OK-1\tGood Notebook\tin_stock\t12.00 USD\tGridline\tStationery > Paper > Notebooks
\tNo Id Notebook\tin_stock\t12.00 USD\tGridline\tStationery > Paper > Notebooks
IW-BAD-2\tBad Price Notebook\tin_stock\ttwelve dollars\tGridline\tStationery > Paper > Notebooks
IW-OK-1\tDuplicate Notebook\tin_stock\t12.00 USD\tGridline\tStationery > Paper > Notebooks
IW-BAD-4\t\tin_stock\t12.00 USD\tGridline\tStationery > Paper > Notebooks
IW-BAD-5\tMaybe Notebook\tperhaps\t12.00 USD\tGridline\tStationery > Paper > Notebooks
IW-BAD-6\tEuro Notebook\tin_stock\t12.00 EUR\tGridline\tStationery > Paper > Notebooks
IW-OK-7\tAnother Notebook\tin_stock\t14.50 USD\tGridline\tStationery > Paper > Notebooks
"""


def main() -> None:
    rows = products(random.Random(SEED))
    merchant_tsv(rows, HERE / "merchant.tsv")
    merchant_xml(rows, HERE / "merchant.xml")
    shopify_csv(rows, HERE / "shopify.csv")
    (HERE / "bad_rows.tsv").write_text(BAD_ROWS, encoding="utf-8")
    print(f"{len(rows)} products -> {HERE}")


if __name__ == "__main__":
    main()
