"""The words that name each topic an agent may ask the customer about (`topics.asked` reads them).

Each topic is a list of regular expressions over a request sentence in normal form: lower case,
words separated by one space, typos of known words corrected (`topics.normalise`). Ambiguous
words are matched only in a phrase that settles them ("which make", never "make"; "how long
… cable", never "how long"), so that a word used in passing asks nothing.
"""

from __future__ import annotations

_COLOURS = ("black", "white", "silver", "blue", "red", "green", "grey", "gray", "pink", "navy", "olive", "beige",
            "walnut", "oak", "purple", "yellow", "orange", "brown", "gold")

# Topic -> patterns (regular expressions, matched with word boundaries around them).
PATTERNS: dict[str, tuple[str, ...]] = {
    "brand": (r"brands?", r"(which|what|any|particular|specific|the|a) (make|maker)", r"manufacturers?",
              r"made by", r"who makes", r"companys?", r"companies", r"labels?",
              r"(favou?rite|preferred|usual|go to|trusted) (make|maker)s?"),
    "colour": (r"colou?rs?", r"colou?rways?", r"colou?red", r"shades?", r"hues?", *_COLOURS),
    "size": (r"sizes?", r"sizing", r"how (big|large|small)", r"dimensions?", r"small", r"medium", r"large",
             r"xs|xl|xxl"),
    "budget": (r"budgets?", r"prices?", r"pricing", r"priced", r"costs?", r"spend(ing)?", r"afford", r"expensive",
               r"cheap(er|est)?", r"pay", r"dollars?", r"bucks", r"how much (would|will|do|can|are) you"),
    "rating": (r"ratings?", r"rated", r"stars?", r"reviews?", r"reviewed"),
    "delivery": (r"deliver(y|ies|ed)?", r"ship(s|ped|ping)?", r"(?<!damaged on )(?<!broken on )(?<!faulty on )(?<!defective on )(?<!dead on )arriv(e|al|ed|es)(?! (damaged|broken|defective|faulty))",
                 r"by (monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|the weekend|next week)", r"how (soon|fast|quickly)",
                 r"need it by", r"by when", r"when do you need", r"urgent(ly)?", r"rush", r"next day",
                 r"get (here|to you)", r"dispatch(ed)?", r"receive(d)?", r"deadline"),
    "priority": (r"(matters?|matter) most", r"what (really )?matters", r"most important", r"more important", r"priorit(y|ies|ise|ize)",
                 r"care (about )?(the )?most", r"top priority"),
    "quantity": (r"how many", r"(buy|get|add) (two|three|four|five|six|a couple|a pair|[2-9]|\d\d+)", r"quantity|quantities", r"several", r"just (the )?one", r"how much of", r"one or (more|two|several)",
                 r"more than one"),
    "item": (r"which (one|item|product|variant|version|model|thing)", r"which of (your|the|these|those) (items|products)", r"describe", r"description",
             r"what (item|product|variant|version) (was|is|did|do)", r"name of the (product|item)",
             r"variants?", r"versions?"),
    "order": (r"(?<!this )orders?", r"ordered", r"(which|what|that) purchase", r"(date of|when was) (the|your) purchase",
              r"purchase date", r"(when|what day|what date|which day) did you (buy|purchase)", r"which of (your|the) orders"),
    "date": (r"dates?", r"dated", r"(what|which) day", r"when (did|was|were)", r"how long ago"),
    "member": (r"members?", r"membership", r"tier", r"loyalty", r"subscri(ber|ption|bed)"),
    "gift": (r"gifts?", r"gifted", r"present", r"for someone", r"someone else"),
    "condition": (r"defect(ive|s)?", r"faulty", r"broken", r"damaged?", r"wrong with", r"why", r"reason",
                  r"chang(e|ed) (your|of) (mind|heart)", r"condition", r"faults?", r"what caused", r"(not )?working", r"(problem|issue|fault)s? with"),
    "needs": (r"lists?", r"(what|anything) else (should|can|do|must) (i|we) (add|get|include|buy)",
              r"for (the|your) project"),  # and `need` in a sentence that asks nothing more precise (topics.asked)
    "features": (r"features?", r"specs?", r"specifications?"),
    "refund": (r"refund(ed|s)?", r"store credit", r"(your|the) card", r"original payment", r"reimburs\w*"),
    # product attributes (the catalog's names)
    "connector": (r"connectors?", r"connections?", r"plugs?", r"usb( c| a)?", r"lightning", r"type c",
                  r"micro usb", r"thunderbolt"),
    "wattage": (r"watts?", r"wattage", r"power output"),
    "ports": (r"ports?",),
    "length": (r"length", r"lengths", r"how long[a-z ]* (cable|cord|lead)", r"how long should it be"),
    "wireless": (r"wireless", r"wired", r"bluetooth"),
    "cordless": (r"cordless", r"corded"),
    "noise_cancelling": (r"noise( cancell?ing)?", r"anc"),
    "capacity": (r"capacity", r"mah", r"litres?|liters?", r"how much (should it|does it|it should) hold"),
    "model": (r"model", r"which phone", r"what phone", r"iphone", r"galaxy", r"pixel"),
    "material": (r"materials?", r"made of", r"leather", r"fabric", r"cotton", r"steel", r"mesh", r"wool",
                 r"silicone", r"plastic", r"ceramic", r"glass"),
    "layout": (r"layout", r"tkl", r"full size keyboard"),
    "switch": (r"switch(es)?",),
    "dpi": (r"dpi", r"sensitivity"),
    "resolution": (r"resolution", r"1080p|1440p|4k|720p", r"pixels"),
    "refresh_rate": (r"refresh( rate)?", r"hz"),
    "microphone": (r"microphones?", r"mic"),
    "gps": (r"gps",),
    "waterproof": (r"waterproof", r"water resistant", r"water proof"),
    "battery_hours": (r"battery( life)?", r"how many hours"),
    "hdmi": (r"hdmi",),
    "dimmable": (r"dimmable", r"dim(ming)?"),
    "lumbar_support": (r"lumbar", r"back support"),
    "width": (r"width", r"how wide"),
    "adjustable": (r"adjustable", r"height"),
    "induction": (r"induction", r"hob", r"stove"),
    "blade_length": (r"blade",),
    "thickness": (r"thickness", r"how thick"),
    "weight": (r"weight", r"how heavy", r"kg"),
    "firmness": (r"firmness", r"firm", r"soft"),
    "fill": (r"fill(ing)?", r"memory foam"),
    "pack": (r"packs?", r"pack size"),
    "players": (r"players",),
    "age": (r"age", r"ages", r"age range"),
    "flavour": (r"flavou?rs?",),
    "finish": (r"finish",),
    "fit": (r"(slim|relaxed|straight|which|what|the|a) fit",),
    "season": (r"season",),
    "diameter": (r"diameter",),
    "count": (r"pieces", r"(piece )?count"),
    "stock": (r"in stock", r"available", r"availability"),
}

# "How many X": X says the topic, not the quantity.
COUNTED = {"dollars": "budget", "bucks": "budget", "days": "delivery", "weeks": "delivery", "stars": "rating",
           "watts": "wattage", "ports": "ports", "hours": "battery_hours", "pieces": "quantity", "units": "quantity",
           "players": "players"}

# An open question: it names no topic but asks for more (topics.asked reads it only when no topic is named).
GENERIC = (r"anything else", r"something else", r"any(thing)? more", r"tell me more", r"a bit more", r"more about",
           r"more details?", r"more info(rmation)?", r"other details?", r"any other", r"should know",
           r"what are you looking for", r"looking for exactly", r"(like|want) to add", r"other requirements?",
           r"other preferences?", r"details", r"requirements", r"preferences", r"criteria", r"what else")

# Words that ask for something: a sentence with one of them (or a "?") is a request.
REQUEST_OPENERS = frozenset({
    "what", "whats", "which", "how", "when", "where", "who", "whose", "why", "do", "does", "did", "is", "are", "was",
    "were", "would", "could", "can", "will", "should", "shall", "may", "might", "any", "anything", "tell", "let",
    "please", "share", "give", "describe", "specify", "confirm", "list", "name", "say", "mention", "send",
    "provide", "kindly", "pls", "plz", "mind", "wht", "need", "pick", "choose", "select", "indicate", "clarify",
    "explain", "advise", "shall",
})
REQUEST_PHRASES = (r"let me know", r"tell me", r"i need (your|to know)", r"need your", r"i(d| would) like to know",
                   r"i want to know", r"please", r"can you", r"could you", r"would you")

# Real words a typo corrector must leave alone (each is one edit from a topic word).
REAL_WORDS = frozenset({
    "older", "order", "start", "stare", "start", "shopping", "shipper", "dating", "rated", "rates", "rating",
    "prize", "pride", "prime", "motel", "modal", "model", "stairs", "scars", "colder", "border", "other",
    "sizes", "sized", "rate", "rates", "date", "data", "ships", "shops", "shop", "chips", "brands", "bland", "grand", "membr", "number", "remember",
    "preset", "presents", "resent", "listen", "lists", "least", "last", "list", "match", "watch", "switch",
    "ratings", "dates", "gates", "gifts", "lifts", "fists", "cost", "most", "post", "host", "lost", "colour",
    "color", "pack", "back", "black", "track", "packs", "stock", "store", "price", "place", "plate", "ordered",
    "reason", "season", "person", "lesson", "needs", "needed", "weeks", "heavy", "ready", "steel", "sheet",
    "stole", "style", "title", "tile", "time", "size", "side", "site", "wide", "wine", "wire", "wired", "tired",
    "fired", "hired", "hours", "house", "horse", "pieces", "prices", "places", "pages", "spend", "spent", "speed",
    "split", "cable", "table", "label", "level", "fabric", "needs", "brand", "bran", "band",
})
