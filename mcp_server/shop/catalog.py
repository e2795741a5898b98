"""Searching the shared catalog and reading product details."""

from __future__ import annotations

import functools
from typing import Literal

from verishop.mcp_server.errors import NotFound, ShopError
from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.shop.seller_text import planted_on, seller_text
from verishop.mcp_server.models import ProductCard, ProductComparison, ProductDetails, SearchResults, VariantOption
from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.envs import draw_stream
from verishop.scenarios.money import USD
from verishop.scenarios.rng import make_rng
from verishop.scenarios.catalog.text import (attribute_token, brand_token, category_token, match_expression,
                                    query_words)
from verishop.scenarios.taxonomy import category

MAX_LIMIT = 50
SortBy = Literal["featured", "price", "rating", "delivery"]
# Each sort_by value's SQL order: equal ratings or delivery days go cheapest first, equal
# prices best rated first, and remaining ties keep the featured order.
SORT_ORDERS: dict[str, str | None] = {
    "featured": None,
    "price": "p.price_cents, p.rating DESC",
    "rating": "p.rating DESC, p.price_cents",
    "delivery": "p.ship_days, p.price_cents",
}

# The catalog's index per sort order within a category (catalog schema 2): its columns are the
# ORDER BY above, then the implicit rowid (the featured-order tie-break). Schema 3 names the rowid
# and adds columns after it (for scenario generation's rankings), which change no order.
SORT_INDEXES = {"price": "products_by_category", "rating": "products_by_category_rating",
                "delivery": "products_by_category_ship"}
# A sorted search with words and at least this many matches walks its category's index in the
# sort order and stops at the page; with fewer, ranking the matches themselves is cheaper.
FEW_MATCHES = 1000
# On that walk, words matching at least DENSE_HITS of the first DENSE_SAMPLE rows are checked
# row by row (a few hundred probes fill a page); sparser words as a set of matching rowids (built
# once, it costs about 1 ms per 5,000 matches but any number of rows checks against it).
DENSE_SAMPLE, DENSE_HITS = 32, 24

_COLUMNS = ("p.product_id, p.group_id, p.title, p.brand, p.category_id, p.price_cents, p.rating, "
            "p.rating_count, p.ship_days, {stock} AS stock, p.attrs")
# The catalog plus this episode's own products (see mcp_server/hub.py, which creates the view).
PRODUCTS = "temp.shop_products"
_STOCK_JOIN = "LEFT JOIN main.stock_changes s ON s.product_id = p.product_id"


def _columns(ep: Episode) -> str:
    """The product columns of a catalog row `p`, stock as the episode sees it: a statement that
    selects them takes `ep.stock_args` as its first parameters."""
    return _COLUMNS.format(stock=ep.stock_sql)


def figure(cents: int) -> float:
    """Hundredths of the shop's currency as the amount a tool shows."""
    return round(cents / 100, 2)


def in_dollars(currency: str, cents: int | None) -> float | None:
    """The `*_usd` alias of an amount: the amount in a USD shop, else nothing (models.py)."""
    return figure(cents) if currency == USD and cents is not None else None


def card(p: Product, currency: str) -> ProductCard:
    return ProductCard(product_id=p.product_id, title=p.title, brand=p.brand, category_id=p.category_id,
                       price_usd=in_dollars(currency, p.price_cents), price=figure(p.price_cents), currency=currency,
                       rating=p.rating, rating_count=p.rating_count, ship_days=p.ship_days, in_stock=p.stock > 0)


async def fetch_product(ep: Episode, product_id: str) -> Product:
    async with ep.db.execute(
        f"SELECT {_columns(ep)} FROM {PRODUCTS} p {_STOCK_JOIN} WHERE p.product_id = ?",
        (*ep.stock_args, product_id.strip())
    ) as cur:
        row = await cur.fetchone()
    if row is None:
        raise NotFound(f"no product with ID {product_id!r}; product IDs look like 'P12345678' and come "
                       f"from search_catalog or get_product results")
    return Product.from_row(tuple(row))


def _facets(catalog: CatalogReader, category_id: str | None, brand: str | None,
            attributes: dict[str, str]) -> list[str]:
    facets = []
    if category_id:
        if category_id not in catalog.category_id_set:
            raise ShopError(f"unknown category {category_id!r}; valid categories: " + ", ".join(catalog.category_ids))
        facets.append(category_token(category_id))
        known = {a.name for a in category(category_id).attributes}
        unknown = sorted(set(attributes) - known)
        if unknown:
            raise ShopError(f"category {category_id!r} has no attribute {unknown[0]!r}; "
                            f"its attributes are: {', '.join(sorted(known))}")
    if brand:
        facets.append(brand_token(brand))
    facets += [attribute_token(k, v) for k, v in sorted(attributes.items())]
    return facets


def _price_bound(ep: Episode, name: str, amount: float | None, dollars: float | None) -> tuple[str, float | None]:
    """A price filter (`name`, in the shop's currency) and its deprecated `{name}_usd` alias: the
    bound, and the name the agent gave it by. The alias holds only in a USD shop."""
    if dollars is None:
        return name, amount
    currency = ep.scenario.catalog.currency
    if currency != USD:
        raise ShopError(f"{name}_usd is in US dollars, but this shop's prices are in {currency}: give {name} "
                        f"(in {currency}) instead")
    if amount is not None and amount != dollars:
        raise ShopError(f"{name} ({amount}) and {name}_usd ({dollars}) differ; give {name} alone")
    return f"{name}_usd", dollars


async def search_catalog(ep: Episode, *, query: str, category_id: str | None, brand: str | None,
                         min_price_usd: float | None, max_price_usd: float | None, min_rating: float | None,
                         max_ship_days: int | None, attributes: dict[str, str], in_stock_only: bool,
                         limit: int, sort_by: str = "featured", min_price: float | None = None,
                         max_price: float | None = None) -> SearchResults:
    """The search tool. Prices are bounded in the shop's currency by `min_price`/`max_price`, or in a
    USD shop by their deprecated aliases `min_price_usd`/`max_price_usd`."""
    if sort_by not in SORT_ORDERS:
        raise ShopError(f"unknown sort_by {sort_by!r}; use one of: {', '.join(SORT_ORDERS)}")
    low_name, low = _price_bound(ep, "min_price", min_price, min_price_usd)
    high_name, high = _price_bound(ep, "max_price", max_price, max_price_usd)
    if low is not None and high is not None and low > high:
        raise ShopError(f"{low_name} ({low}) is above {high_name} ({high})")
    words = query_words(query)
    facets = _facets(ep.catalog, category_id, brand, attributes)
    where, args = [], []
    if low is not None:
        where.append("p.price_cents >= ?")
        args.append(round(low * 100))
    if high is not None:
        where.append("p.price_cents <= ?")
        args.append(round(high * 100))
    if min_rating is not None:
        where.append("p.rating >= ?")
        args.append(min_rating)
    if max_ship_days is not None:
        where.append("p.ship_days <= ?")
        args.append(max_ship_days)
    if in_stock_only:
        where.append(f"{ep.stock_sql} > 0")
        args.extend(ep.stock_args)
    filters = (" AND " + " AND ".join(where)) if where else ""

    if SORT_ORDERS[sort_by] and not (words or facets):
        raise ShopError("sort_by needs a query, a category_id, a brand or attributes to sort within")
    depth = ep.scenario.axes.search_top_k
    # One row more than asked, so that retrieval noise can swap the last result with the next
    # one exactly as it would in a longer page: a page is always a prefix of a longer one.
    search = functools.partial(_run_search, ep, filters=filters, args=args, limit=limit + 1, depth=depth,
                               sort_by=sort_by, category_id=category_id)
    products = await search(match_expression(words, facets) if (words or facets) else None)
    note = None
    if not products and len(words) > 1:
        # No product has every word: fall back to any word (filters still apply).
        relaxed = "(" + " OR ".join(f'"{w}"' for w in words) + ")"
        if facets:
            relaxed += " AND " + match_expression([], facets)
        products = await search(relaxed)
        note = "no product matched every word of the query; showing products matching some of them"
    if SORT_ORDERS[sort_by] is None:  # an explicit sort is exact; only relevance order is noisy
        products = _perturb(ep, products, words, facets, filters, args)
    currency = ep.scenario.catalog.currency
    cards = [card(p, currency) for p in products[:limit]]
    for shown in cards:
        shown.seller_note = planted_on(ep.scenario, shown.product_id)
    return SearchResults(results=cards, note=note)


async def _run_search(ep: Episode, match: str | None, *, filters: str, args: list, limit: int,
                      depth: int, sort_by: str = "featured", category_id: str | None = None) -> list[Product]:
    # Rows are stored in featured order, so ordering by rowid streams the best matches
    # first instead of sorting every hit (see scenarios/catalog/generate.py). Search depth
    # (an axis of difficulty): only the first `depth` matches of the words and facets are
    # looked at; price, rating, shipping and stock filters then apply to those.
    # A sorted search is the shop's "sort by" button: it ranks every match that passes the
    # filters, like a shop's listing page, so the cheapest product of a category is reachable
    # however deep it sits in the featured order.
    if SORT_ORDERS[sort_by] is not None:
        return await _sorted_search(ep, match, filters=filters, args=args, limit=limit, sort_by=sort_by,
                                    category_id=category_id)
    if match is None:
        source = "(SELECT rowid FROM cat.products ORDER BY rowid LIMIT ?)"
        params: list = [depth]
    else:
        source = "(SELECT rowid FROM cat.products_fts(?) ORDER BY rowid LIMIT ?)"
        params = [match, depth]
    # `rowid IN (...)`, not a join on the subquery: SQLite walks the matches in rowid order and
    # stops at the page, where a join materialised all `depth` of them, read each row, then sorted.
    sql = (f"SELECT {_columns(ep)} FROM cat.products p {_STOCK_JOIN} "
           f"WHERE p.rowid IN {source}{filters} ORDER BY p.rowid LIMIT ?")
    return await _products(ep, sql, [*ep.stock_args, *params, *args, limit])


async def _sorted_search(ep: Episode, match: str, *, filters: str, args: list, limit: int, sort_by: str,
                         category_id: str | None, plan: str | None = None) -> list[Product]:
    """Every match passing the filters, in `sort_by` order, first `limit`. The same rows
    whichever plan reads them (`plan` forces one, for tests):
    - "walk": down the category's index in the sort order, stopping at the page (bounded reads
      when the page fills early); the words, if any, as a set of matching rowids;
    - "probe": the same walk, each row's words checked by a full-text lookup of its rowid (for
      words most of the category matches);
    - "rank": every match of the words and facets, ranked (cheap when they are few)."""
    order = SORT_ORDERS[sort_by]
    alone = category_id is not None and match == match_expression([], [category_token(category_id)])
    if plan is None:
        plan = "rank"
        if category_id is not None and ep.catalog.schema_version >= 2:
            if alone or await _match_count(ep, match, FEW_MATCHES) >= FEW_MATCHES:
                plan = "walk" if alone or not await _dense(ep, match, sort_by, category_id) else "probe"
    if plan == "rank":
        sql = (f"SELECT {_columns(ep)} FROM (SELECT rowid FROM cat.products_fts(?)) f "
               f"JOIN cat.products p ON p.rowid = f.rowid {_STOCK_JOIN} "
               f"WHERE 1{filters} ORDER BY {order}, f.rowid LIMIT ?")
        return await _products(ep, sql, [*ep.stock_args, match, *args, limit], offload=True)
    # The category facet is in `match` too, so the rowid set holds the category's matches only.
    words = "" if alone else " AND p.rowid IN (SELECT rowid FROM cat.products_fts(?))"
    params = [*ep.stock_args, category_id, *([] if alone else [match]), *args, limit]
    if plan == "probe":  # the cheaper filters first, then the words
        filters += " AND EXISTS (SELECT 1 FROM cat.products_fts(?) f WHERE f.rowid = p.rowid)"
        words, params = "", [*ep.stock_args, category_id, *args, match, limit]
    # INDEXED BY: left alone, SQLite may pick another index for a range filter and sort every row.
    sql = (f"SELECT {_columns(ep)} FROM cat.products p INDEXED BY {SORT_INDEXES[sort_by]} {_STOCK_JOIN} "
           f"WHERE p.category_id = ?{words}{filters} ORDER BY {order}, p.rowid LIMIT ?")
    return await _products(ep, sql, params, offload=True)


async def _dense(ep: Episode, match: str, sort_by: str, category_id: str) -> bool:
    """Whether the words match most of the first rows of the category's walk."""
    sql = (f"SELECT count(*) FROM (SELECT rowid AS r FROM cat.products INDEXED BY {SORT_INDEXES[sort_by]} "
           f"WHERE category_id = ? ORDER BY {SORT_ORDERS[sort_by].replace('p.', '')}, rowid LIMIT ?) "
           f"WHERE EXISTS (SELECT 1 FROM cat.products_fts(?) f WHERE f.rowid = r)")
    async with ep.db.execute(sql, (category_id, DENSE_SAMPLE, match), offload=True) as cur:
        return (await cur.fetchone())[0] >= DENSE_HITS


async def _match_count(ep: Episode, match: str, cap: int) -> int:
    async with ep.db.execute("SELECT count(*) FROM (SELECT rowid FROM cat.products_fts(?) LIMIT ?)",
                             (match, cap)) as cur:
        return (await cur.fetchone())[0]


async def _products(ep: Episode, sql: str, params: list, *, offload: bool = False) -> list[Product]:
    """The rows of `sql` as products; `offload` for a statement that may read thousands of rows
    (mcp_server/connection.py)."""
    async with ep.db.execute(sql, params, offload=offload) as cur:
        rows = await cur.fetchall()
    of_row = ep.catalog.product_of_row
    return [of_row(tuple(r)) for r in rows]


def _perturb(ep: Episode, products: list[Product], *query: object) -> list[Product]:
    """Retrieval noise (an axis of difficulty): each neighbouring pair of results swaps with
    probability ε. The same query in the same episode always gives the same order."""
    noise = ep.scenario.axes.retrieval_noise
    if noise <= 0 or len(products) < 2:
        return products
    rng = make_rng("retrieval-noise", draw_stream(ep.scenario.env_id), ep.scenario.seed, repr(query))
    shuffled = list(products)
    for i in range(len(shuffled) - 1):
        if rng.random() < noise:
            shuffled[i], shuffled[i + 1] = shuffled[i + 1], shuffled[i]
    return shuffled


async def compare_products(ep: Episode, product_ids: list[str]) -> ProductComparison:
    unique = list(dict.fromkeys(pid.strip() for pid in product_ids))
    details = []
    missing = []
    for product_id in unique:
        try:
            details.append(await get_product(ep, product_id))
        except NotFound:
            missing.append(product_id)
    if missing:
        raise NotFound(f"no product with ID {', '.join(repr(m) for m in missing)}; product IDs look like "
                       f"'P12345678' and come from search_catalog or get_product results")
    return ProductComparison(products=details)


async def variant_group(ep: Episode, p: Product) -> tuple[list[Product], list[str]]:
    """`p`'s variant group (itself included, the shop's order) and the options its variants differ
    on: an imported category may record two (size and colour), a group shows those its variants
    differ on; otherwise the category's one variant attribute, as always."""
    async with ep.db.execute(
        f"SELECT {_columns(ep)} FROM {PRODUCTS} p {_STOCK_JOIN} WHERE p.group_id = ? ORDER BY p.rank",
        (*ep.stock_args, p.group_id),
    ) as cur:
        siblings = [Product.from_row(tuple(r)) for r in await cur.fetchall()]
    cat = category(p.category_id)
    differing = cat.differing_options([s.attrs for s in siblings])
    options = list(differing) if differing else [cat.variant_attribute] if cat.variant_attribute else []
    return siblings, options


def variant_options(siblings: list[Product], options: list[str], currency: str) -> list[VariantOption]:
    """The variants as a tool shows them (none when the group has one product or no option)."""
    if len(siblings) <= 1 or not options:
        return []
    return [VariantOption(product_id=s.product_id, value=" / ".join(s.attrs.get(a, "") for a in options),
                          values={a: s.attrs.get(a, "") for a in options} if len(options) > 1 else None,
                          price_usd=in_dollars(currency, s.price_cents), price=figure(s.price_cents),
                          in_stock=s.stock > 0) for s in siblings]


async def get_product(ep: Episode, product_id: str) -> ProductDetails:
    p = await fetch_product(ep, product_id)
    cat = category(p.category_id)
    currency = ep.scenario.catalog.currency
    siblings, options = await variant_group(ep, p)
    variants = variant_options(siblings, options, currency)
    return ProductDetails(**dict(card(p, currency)), department=cat.department, attributes=p.attrs,
                          stock_units=p.stock, variant_attribute=options[0] if variants else None,
                          variant_attributes=options if variants and len(options) > 1 else None,
                          variants=variants,
                          seller_text=seller_text(p, ep.catalog.absent_fields, planted_on(ep.scenario, p.product_id)))
