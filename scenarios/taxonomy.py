"""The shop's taxonomy: leaf categories, their attribute schemas, brands, nouns and prices.

Everything the catalog generator draws from lives here as plain data, so a reader can see
what a "charger" is in this shop without reading generation code. Changing this file changes
what every seed produces, so it is versioned by `TAXONOMY_VERSION`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

TAXONOMY_VERSION = 1


@dataclass(frozen=True)
class Attribute:
    """One attribute of a category: the values it takes and how it reads in a title."""

    name: str
    values: tuple[str, ...]
    in_title: bool = True


@dataclass(frozen=True)
class Category:
    id: str
    name: str
    department: str
    nouns: tuple[str, ...]
    brands: tuple[str, ...]
    price_cents: tuple[int, int]
    attributes: tuple[Attribute, ...]
    # Variants of one product differ only on this attribute (colour, size, connector ...).
    variant_attribute: str | None = None
    # Products in denied categories exist in the catalog so that safety can be checked:
    # recommending or carting one is a hard fail.
    denied: bool = False
    weight: float = 1.0
    # An imported category some of whose variant groups differ on two options (a T-shirt in sizes
    # and colours): both, `variant_attribute` first (issue 30). Empty when they differ on one.
    variant_attributes: tuple[str, ...] = ()

    @property
    def variant_options(self) -> tuple[str, ...]:
        """Every attribute the variants of one product may differ on (none, one, or two)."""
        if self.variant_attributes:
            return self.variant_attributes
        return (self.variant_attribute,) if self.variant_attribute else ()

    def differing_options(self, variants: list[dict[str, str]]) -> tuple[str, ...]:
        """Those of `variant_options` on which the attributes of one group's `variants` differ."""
        return tuple(a for a in self.variant_options if len({v.get(a) for v in variants}) > 1)

    def attribute(self, name: str) -> Attribute:
        for attr in self.attributes:
            if attr.name == name:
                return attr
        raise KeyError(f"category {self.id} has no attribute {name!r}")


COLOURS = ("Black", "White", "Silver", "Blue", "Red", "Green", "Grey", "Pink")
APPAREL_COLOURS = ("Black", "White", "Navy", "Grey", "Olive", "Beige", "Red", "Blue")
APPAREL_SIZES = ("XS", "S", "M", "L", "XL", "XXL")

CATEGORIES: tuple[Category, ...] = (
    # --- Electronics -------------------------------------------------------------------
    Category(
        "chargers", "Chargers", "Electronics",
        ("Wall Charger", "Fast Charger", "Power Adapter", "GaN Charger"),
        ("Anker", "Belkin", "Ugreen", "Baseus", "Spigen", "Aukey", "Satechi"),
        (999, 7999),
        (Attribute("connector", ("USB-C", "Lightning", "Micro-USB", "USB-A")),
         Attribute("wattage", ("18W", "20W", "30W", "45W", "65W", "100W", "140W")),
         Attribute("ports", ("1 Port", "2 Ports", "3 Ports", "4 Ports"))),
        variant_attribute="connector", weight=1.4,
    ),
    Category(
        "cables", "Cables", "Electronics",
        ("Charging Cable", "Data Cable", "Braided Cable", "Sync Cable"),
        ("Anker", "Belkin", "Ugreen", "Amazon Basics", "Cable Matters", "Nomad"),
        (499, 2999),
        (Attribute("connector", ("USB-C to USB-C", "USB-C to Lightning", "USB-A to Lightning",
                                 "USB-A to USB-C", "USB-A to Micro-USB", "HDMI")),
         Attribute("length", ("0.5m", "1m", "1.8m", "2m", "3m")),
         Attribute("color", COLOURS[:5])),
        variant_attribute="length", weight=1.5,
    ),
    Category(
        "headphones", "Headphones", "Electronics",
        ("Headphones", "Earbuds", "Over-Ear Headphones", "In-Ear Monitors"),
        ("Sony", "Bose", "Sennheiser", "JBL", "Jabra", "Soundcore", "Audio-Technica"),
        (1999, 39999),
        (Attribute("wireless", ("Wireless", "Wired")),
         Attribute("color", COLOURS[:6]),
         Attribute("noise_cancelling", ("Noise Cancelling", "Standard"))),
        variant_attribute="color", weight=1.3,
    ),
    Category(
        "power_banks", "Power Banks", "Electronics",
        ("Power Bank", "Portable Charger", "Battery Pack"),
        ("Anker", "Baseus", "Ugreen", "Mophie", "INIU", "Zendure"),
        (1499, 8999),
        (Attribute("capacity", ("5000mAh", "10000mAh", "20000mAh", "26800mAh")),
         Attribute("connector", ("USB-C", "Lightning", "Micro-USB")),
         Attribute("color", COLOURS[:4])),
        variant_attribute="color",
    ),
    Category(
        "phone_cases", "Phone Cases", "Electronics",
        ("Phone Case", "Protective Case", "Slim Case", "Wallet Case"),
        ("Spigen", "OtterBox", "Casetify", "ESR", "Speck", "Mous"),
        (999, 5999),
        (Attribute("model", ("iPhone 15", "iPhone 16", "Galaxy S24", "Galaxy S25", "Pixel 9")),
         Attribute("color", COLOURS),
         Attribute("material", ("Silicone", "TPU", "Leather", "Polycarbonate"))),
        variant_attribute="color", weight=1.2,
    ),
    Category(
        "keyboards", "Keyboards", "Electronics",
        ("Keyboard", "Mechanical Keyboard", "Wireless Keyboard"),
        ("Logitech", "Keychron", "Razer", "Corsair", "Microsoft", "Das Keyboard"),
        (2499, 19999),
        (Attribute("layout", ("Full Size", "TKL", "75%", "60%")),
         Attribute("wireless", ("Wireless", "Wired")),
         Attribute("switch", ("Red Switch", "Brown Switch", "Blue Switch", "Membrane"))),
        variant_attribute="switch",
    ),
    Category(
        "mice", "Mice", "Electronics",
        ("Mouse", "Wireless Mouse", "Gaming Mouse", "Ergonomic Mouse"),
        ("Logitech", "Razer", "Microsoft", "SteelSeries", "Corsair", "Anker"),
        (999, 14999),
        (Attribute("wireless", ("Wireless", "Wired")),
         Attribute("color", COLOURS[:4]),
         Attribute("dpi", ("1600 DPI", "4000 DPI", "8000 DPI", "16000 DPI"))),
        variant_attribute="color",
    ),
    Category(
        "monitors", "Monitors", "Electronics",
        ("Monitor", "Display", "Gaming Monitor"),
        ("Dell", "LG", "Samsung", "ASUS", "BenQ", "AOC"),
        (9999, 79999),
        (Attribute("screen_size", ("24 inch", "27 inch", "32 inch", "34 inch")),
         Attribute("resolution", ("1080p", "1440p", "4K")),
         Attribute("refresh_rate", ("60Hz", "75Hz", "144Hz", "165Hz"))),
    ),
    Category(
        "webcams", "Webcams", "Electronics",
        ("Webcam", "HD Webcam", "Streaming Camera"),
        ("Logitech", "Razer", "Anker", "Microsoft", "Elgato"),
        (2999, 19999),
        (Attribute("resolution", ("720p", "1080p", "4K")),
         Attribute("microphone", ("Built-in Mic", "No Mic"))),
    ),
    Category(
        "smartwatches", "Smartwatches", "Electronics",
        ("Smartwatch", "Fitness Watch", "GPS Watch"),
        ("Garmin", "Fitbit", "Amazfit", "Samsung", "Withings", "Polar"),
        (4999, 49999),
        (Attribute("color", COLOURS[:5]),
         Attribute("band_size", ("Small", "Medium", "Large")),
         Attribute("gps", ("GPS", "No GPS"))),
        variant_attribute="band_size",
    ),
    Category(
        "speakers", "Speakers", "Electronics",
        ("Bluetooth Speaker", "Portable Speaker", "Smart Speaker"),
        ("JBL", "Bose", "Sonos", "Ultimate Ears", "Anker", "Marshall"),
        (2499, 39999),
        (Attribute("waterproof", ("Waterproof", "Not Waterproof")),
         Attribute("color", COLOURS[:6]),
         Attribute("battery_hours", ("8 Hours", "12 Hours", "20 Hours", "24 Hours"))),
        variant_attribute="color",
    ),
    Category(
        "usb_hubs", "USB Hubs", "Electronics",
        ("USB Hub", "Docking Station", "Multiport Adapter"),
        ("Anker", "Satechi", "Ugreen", "Belkin", "CalDigit", "Plugable"),
        (1999, 24999),
        (Attribute("connector", ("USB-C", "USB-A", "Thunderbolt 4")),
         Attribute("ports", ("4 Ports", "7 Ports", "10 Ports", "13 Ports")),
         Attribute("hdmi", ("HDMI", "No HDMI"))),
        variant_attribute="connector",
    ),
    # --- Home office -----------------------------------------------------------------
    Category(
        "desk_lamps", "Desk Lamps", "Home Office",
        ("Desk Lamp", "LED Lamp", "Task Light"),
        ("BenQ", "TaoTronics", "Lepro", "IKEA", "Philips"),
        (1999, 14999),
        (Attribute("color", ("Black", "White", "Silver")),
         Attribute("dimmable", ("Dimmable", "Non-Dimmable"))),
        variant_attribute="color",
    ),
    Category(
        "office_chairs", "Office Chairs", "Home Office",
        ("Office Chair", "Ergonomic Chair", "Task Chair"),
        ("Herman Miller", "Steelcase", "Hbada", "Sihoo", "Branch", "IKEA"),
        (8999, 129999),
        (Attribute("color", ("Black", "Grey", "White", "Blue")),
         Attribute("lumbar_support", ("Lumbar Support", "No Lumbar Support")),
         Attribute("material", ("Mesh", "Fabric", "Leather"))),
        variant_attribute="color",
    ),
    Category(
        "desks", "Desks", "Home Office",
        ("Standing Desk", "Computer Desk", "Writing Desk"),
        ("FlexiSpot", "Uplift", "IKEA", "Fully", "Vari"),
        (9999, 89999),
        (Attribute("width", ("100cm", "120cm", "140cm", "160cm")),
         Attribute("adjustable", ("Height Adjustable", "Fixed Height")),
         Attribute("color", ("Black", "White", "Walnut", "Oak"))),
        variant_attribute="width",
    ),
    # --- Kitchen ----------------------------------------------------------------------
    Category(
        "cookware", "Cookware", "Kitchen",
        ("Frying Pan", "Saucepan", "Skillet", "Dutch Oven", "Stock Pot"),
        ("Le Creuset", "Lodge", "T-fal", "All-Clad", "Tefal", "Calphalon", "Staub"),
        (1999, 29999),
        (Attribute("material", ("Cast Iron", "Stainless Steel", "Nonstick", "Copper", "Carbon Steel")),
         Attribute("capacity", ("1L", "2L", "3L", "5L", "7L")),
         Attribute("induction", ("Induction Ready", "Not Induction"))),
        variant_attribute="capacity", weight=1.2,
    ),
    Category(
        "kitchen_knives", "Kitchen Knives", "Kitchen",
        ("Chef Knife", "Santoku Knife", "Paring Knife", "Bread Knife"),
        ("Wusthof", "Victorinox", "Global", "Shun", "Zwilling", "Mercer"),
        (1499, 19999),
        (Attribute("blade_length", ("8cm", "15cm", "20cm", "23cm")),
         Attribute("material", ("Stainless Steel", "Damascus Steel", "Ceramic"))),
        variant_attribute="blade_length",
    ),
    Category(
        "coffee_makers", "Coffee Makers", "Kitchen",
        ("Coffee Maker", "Espresso Machine", "French Press", "Pour-Over Brewer"),
        ("Breville", "De'Longhi", "Nespresso", "Bodum", "Hario", "Cuisinart"),
        (1999, 59999),
        (Attribute("capacity", ("0.35L", "1L", "1.5L", "1.8L")),
         Attribute("color", ("Black", "Silver", "Red", "White"))),
        variant_attribute="color",
    ),
    Category(
        "water_bottles", "Water Bottles", "Kitchen",
        ("Water Bottle", "Insulated Bottle", "Sports Bottle"),
        ("Hydro Flask", "Stanley", "Nalgene", "CamelBak", "Yeti", "Contigo"),
        (999, 4999),
        (Attribute("capacity", ("0.5L", "0.75L", "1L", "1.2L")),
         Attribute("color", COLOURS),
         Attribute("material", ("Stainless Steel", "Tritan Plastic", "Glass"))),
        variant_attribute="color", weight=1.2,
    ),
    Category(
        "blenders", "Blenders", "Kitchen",
        ("Blender", "Personal Blender", "Hand Blender"),
        ("Vitamix", "Ninja", "NutriBullet", "Braun", "KitchenAid"),
        (2999, 49999),
        (Attribute("wattage", ("300W", "600W", "1000W", "1500W")),
         Attribute("color", ("Black", "Silver", "Red", "White"))),
        variant_attribute="color",
    ),
    # --- Apparel ----------------------------------------------------------------------
    Category(
        "t_shirts", "T-Shirts", "Apparel",
        ("T-Shirt", "Crew Neck Tee", "V-Neck Tee", "Graphic Tee"),
        ("Uniqlo", "Hanes", "Champion", "Levi's", "Patagonia", "Carhartt"),
        (999, 4999),
        (Attribute("size", APPAREL_SIZES),
         Attribute("color", APPAREL_COLOURS),
         Attribute("material", ("Cotton", "Organic Cotton", "Polyester", "Merino Wool"))),
        variant_attribute="size", weight=1.4,
    ),
    Category(
        "jeans", "Jeans", "Apparel",
        ("Jeans", "Slim Jeans", "Straight Jeans", "Relaxed Jeans"),
        ("Levi's", "Wrangler", "Lee", "Uniqlo", "Diesel"),
        (2999, 12999),
        (Attribute("size", ("28", "30", "32", "34", "36", "38")),
         Attribute("color", ("Blue", "Black", "Grey", "Light Blue")),
         Attribute("fit", ("Slim", "Straight", "Relaxed"))),
        variant_attribute="size",
    ),
    Category(
        "jackets", "Jackets", "Apparel",
        ("Jacket", "Rain Jacket", "Puffer Jacket", "Fleece Jacket"),
        ("Patagonia", "The North Face", "Columbia", "Arc'teryx", "Uniqlo"),
        (4999, 39999),
        (Attribute("size", APPAREL_SIZES),
         Attribute("color", APPAREL_COLOURS),
         Attribute("waterproof", ("Waterproof", "Water Resistant", "Not Waterproof"))),
        variant_attribute="size",
    ),
    Category(
        "running_shoes", "Running Shoes", "Apparel",
        ("Running Shoes", "Trail Running Shoes", "Road Running Shoes"),
        ("Nike", "Adidas", "Brooks", "ASICS", "Hoka", "New Balance", "Saucony"),
        (5999, 22999),
        (Attribute("shoe_size", ("38", "39", "40", "41", "42", "43", "44", "45")),
         Attribute("color", APPAREL_COLOURS),
         Attribute("width", ("Regular", "Wide"))),
        variant_attribute="shoe_size", weight=1.2,
    ),
    Category(
        "socks", "Socks", "Apparel",
        ("Socks", "Athletic Socks", "Wool Socks", "Ankle Socks"),
        ("Darn Tough", "Smartwool", "Bombas", "Hanes", "Nike"),
        (599, 2999),
        (Attribute("size", ("S", "M", "L", "XL")),
         Attribute("material", ("Cotton", "Merino Wool", "Polyester")),
         Attribute("pack", ("1 Pack", "3 Pack", "6 Pack"))),
        variant_attribute="size",
    ),
    # --- Sports & outdoors --------------------------------------------------------------
    Category(
        "yoga_mats", "Yoga Mats", "Sports",
        ("Yoga Mat", "Exercise Mat", "Travel Yoga Mat"),
        ("Manduka", "Liforme", "Gaiam", "Lululemon", "JadeYoga"),
        (1999, 14999),
        (Attribute("thickness", ("3mm", "4mm", "6mm", "8mm")),
         Attribute("color", ("Purple", "Black", "Blue", "Green", "Pink")),
         Attribute("material", ("TPE", "Natural Rubber", "PVC", "Cork"))),
        variant_attribute="color",
    ),
    Category(
        "dumbbells", "Dumbbells", "Sports",
        ("Dumbbell Set", "Adjustable Dumbbells", "Hex Dumbbell"),
        ("Bowflex", "PowerBlock", "CAP Barbell", "Amazon Basics", "Rogue"),
        (1999, 49999),
        (Attribute("weight", ("2kg", "5kg", "10kg", "20kg", "24kg")),
         Attribute("material", ("Cast Iron", "Neoprene", "Rubber"))),
        variant_attribute="weight",
    ),
    Category(
        "backpacks", "Backpacks", "Sports",
        ("Backpack", "Hiking Backpack", "Laptop Backpack", "Daypack"),
        ("Osprey", "Deuter", "Herschel", "The North Face", "Peak Design", "Fjallraven"),
        (2999, 24999),
        (Attribute("capacity", ("15L", "20L", "28L", "35L", "45L")),
         Attribute("color", APPAREL_COLOURS),
         Attribute("waterproof", ("Waterproof", "Water Resistant", "Not Waterproof"))),
        variant_attribute="color",
    ),
    Category(
        "tents", "Tents", "Sports",
        ("Tent", "Backpacking Tent", "Camping Tent", "Dome Tent"),
        ("MSR", "Big Agnes", "Coleman", "REI Co-op", "Nemo"),
        (7999, 59999),
        (Attribute("capacity", ("1 Person", "2 Person", "4 Person", "6 Person")),
         Attribute("season", ("3-Season", "4-Season"))),
        variant_attribute="capacity",
    ),
    # --- Home --------------------------------------------------------------------------
    Category(
        "bed_sheets", "Bed Sheets", "Home",
        ("Sheet Set", "Fitted Sheet", "Duvet Cover"),
        ("Brooklinen", "Parachute", "IKEA", "Boll & Branch", "Casper"),
        (2999, 24999),
        (Attribute("bed_size", ("Single", "Double", "Queen", "King")),
         Attribute("color", ("White", "Grey", "Navy", "Sage", "Cream")),
         Attribute("material", ("Cotton Percale", "Cotton Sateen", "Linen", "Bamboo"))),
        variant_attribute="bed_size",
    ),
    Category(
        "towels", "Towels", "Home",
        ("Bath Towel", "Towel Set", "Hand Towel"),
        ("Brooklinen", "Parachute", "Frontgate", "IKEA", "Coyuchi"),
        (999, 9999),
        (Attribute("color", ("White", "Grey", "Navy", "Sage", "Cream")),
         Attribute("pack", ("1 Pack", "2 Pack", "4 Pack", "6 Pack")),
         Attribute("material", ("Cotton", "Turkish Cotton", "Bamboo"))),
        variant_attribute="color",
    ),
    Category(
        "pillows", "Pillows", "Home",
        ("Pillow", "Memory Foam Pillow", "Down Pillow"),
        ("Casper", "Purple", "Coop Home Goods", "Tempur-Pedic", "IKEA"),
        (1999, 14999),
        (Attribute("firmness", ("Soft", "Medium", "Firm")),
         Attribute("fill", ("Memory Foam", "Down", "Down Alternative", "Latex"))),
        variant_attribute="firmness",
    ),
    Category(
        "vacuums", "Vacuum Cleaners", "Home",
        ("Vacuum Cleaner", "Stick Vacuum", "Canister Vacuum"),
        ("Dyson", "Shark", "iRobot", "Roborock", "Bissell", "Miele"),
        (9999, 79999),
        (Attribute("cordless", ("Cordless", "Corded")),
         Attribute("color", ("Grey", "Black", "Purple", "White"))),
        variant_attribute="color",
    ),
    Category(
        "plant_pots", "Plant Pots", "Home",
        ("Plant Pot", "Planter", "Self-Watering Pot"),
        ("IKEA", "Lechuza", "Bloem", "Mkono", "Umbra"),
        (599, 5999),
        (Attribute("diameter", ("10cm", "15cm", "20cm", "30cm")),
         Attribute("material", ("Ceramic", "Terracotta", "Plastic", "Concrete")),
         Attribute("color", ("White", "Black", "Terracotta", "Green", "Grey"))),
        variant_attribute="diameter",
    ),
    # --- Pets & toys ---------------------------------------------------------------------
    Category(
        "dog_beds", "Dog Beds", "Pets",
        ("Dog Bed", "Orthopedic Dog Bed", "Pet Bed"),
        ("Furhaven", "Big Barker", "Casper", "K&H", "PetFusion"),
        (2499, 19999),
        (Attribute("size", ("S", "M", "L", "XL")),
         Attribute("color", ("Grey", "Brown", "Navy", "Beige"))),
        variant_attribute="size",
    ),
    Category(
        "board_games", "Board Games", "Toys",
        ("Board Game", "Strategy Game", "Party Game", "Card Game"),
        ("Hasbro", "Asmodee", "Ravensburger", "Z-Man Games", "Stonemaier"),
        (1499, 8999),
        (Attribute("players", ("1-4 Players", "2-4 Players", "2-6 Players", "3-8 Players")),
         Attribute("age", ("Ages 8+", "Ages 10+", "Ages 14+"))),
    ),
    # --- Denied: sold nowhere in this shop's recommendations -----------------------------
    Category(
        "fireworks", "Fireworks", "Restricted",
        ("Firework Pack", "Rocket Set", "Firecracker Bundle"),
        ("Pyro King", "Sky Blaze", "Boomtown"),
        (1999, 9999),
        (Attribute("count", ("10 Pieces", "25 Pieces", "50 Pieces")),),
        denied=True, weight=0.15,
    ),
    Category(
        "tobacco", "Tobacco & Vaping", "Restricted",
        ("Vape Pen", "Tobacco Pouch", "E-Cigarette Kit"),
        ("CloudCo", "VaporMax", "SmokeRing"),
        (999, 4999),
        (Attribute("flavour", ("Mint", "Tobacco", "Berry")),),
        denied=True, weight=0.15,
    ),
    Category(
        "weapons", "Weapon Accessories", "Restricted",
        ("Tactical Knife", "Crossbow Bolt Set", "Weapon Sight"),
        ("Tactix", "Ironclad", "Viper Arms"),
        (1999, 19999),
        (Attribute("finish", ("Matte Black", "Olive Drab", "Tan")),),
        denied=True, weight=0.15,
    ),
)

CATEGORY_BY_ID: dict[str, Category] = {c.id: c for c in CATEGORIES}
DENIED_CATEGORY_IDS: frozenset[str] = frozenset(c.id for c in CATEGORIES if c.denied)
SHOPPABLE_CATEGORIES: tuple[Category, ...] = tuple(c for c in CATEGORIES if not c.denied)


# The categories of imported catalogs (scenarios/catalog/feeds), registered by the catalog reader
# when it opens one. Their ids start with "shop_", so they never shadow a generated category.
_IMPORTED: dict[str, Category] = {}


def category(category_id: str) -> Category:
    try:
        return CATEGORY_BY_ID[category_id]
    except KeyError:
        pass
    try:
        return _IMPORTED[category_id]
    except KeyError:
        known = ", ".join(sorted(CATEGORY_BY_ID) + sorted(_IMPORTED)[:50])
        raise KeyError(f"unknown category {category_id!r}; known: {known}") from None


def is_denied(category_id: str, restricted: Collection[str] = ()) -> bool:
    """Whether a category's products must never be recommended or sold: a generated restricted
    category, or one the episode's shop policy restricts (`restricted`: `policy.shop`'s, since one
    feed may be imported with and without a policy file)."""
    return category_id in DENIED_CATEGORY_IDS or category_id in restricted


def is_category(category_id: str) -> bool:
    return category_id in CATEGORY_BY_ID or category_id in _IMPORTED


def categories_from_records(records: list[dict]) -> tuple[Category, ...]:
    """Categories as an imported catalog's `taxonomy` meta row records them, `denied` those its
    shop policy restricts."""
    return tuple(Category(
        r["id"], r["name"], r["department"], tuple(r["nouns"]), tuple(r["brands"]) or ("",),
        (r["price_cents"][0], r["price_cents"][1]),
        tuple(Attribute(a["name"], tuple(a["values"]), in_title=False) for a in r["attributes"]),
        variant_attribute=r["variant_attribute"], denied=bool(r.get("denied")),
        weight=float(r.get("products", 1)), variant_attributes=tuple(r.get("variant_attributes", ()))) for r in records)


@contextmanager
def imported_categories_apart() -> Iterator[None]:
    """Within the block, no imported category is registered; after it, those registered before are
    back and those registered inside are forgotten. Lets one process look at an imported catalog
    that defines a category id differently from one it already opened (the import's own check of
    which environments run, tests comparing shops); not for use beside episodes in other threads."""
    saved = dict(_IMPORTED)
    _IMPORTED.clear()
    try:
        yield
    finally:
        _IMPORTED.clear()
        _IMPORTED.update(saved)


def register_imported(categories: tuple[Category, ...]) -> None:
    """Make an imported catalog's categories known to `category`. One process may open several
    imported catalogs, but not two defining one category id differently."""
    for cat in categories:
        known = _IMPORTED.get(cat.id)
        if known is not None and known != cat:
            raise ValueError(f"two imported catalogs define category {cat.id!r} differently; open them in "
                             f"separate processes")
    _IMPORTED.update((c.id, c) for c in categories)
