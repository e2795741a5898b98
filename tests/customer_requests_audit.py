"""A third, independent table of agent requests for the customer's topic reader (issue 28 audit
pass), written by someone who had not seen the recogniser's word lists: other verbs, registers
(curt, chatty, formal), typos, several topics at once, questions about which order or item, the
refund method, open questions, and requests about something else. Labels as in
tests/customer_requests.py: the exact set of topics asked; a topic read beyond it is a wrong reveal.
"""

from __future__ import annotations

AUDIT: tuple[tuple[str, frozenset[str]], ...] = tuple((text, frozenset(topics)) for text, topics in (
    # brand
    ("Got a favourite make?", {"brand"}),
    ("Is there a brand you swear by?", {"brand"}),
    ("Name the brand and I'll search.", {"brand"}),
    ("Brand preferences, if any?", {"brand"}),
    ("Would a no-name brand be OK or do you want a known one?", {"brand"}),
    ("Tell me whos the maker you prefer", {"brand"}),
    ("Do you favour any particular brands?", {"brand"}),
    # colour
    ("Which colourway do you want?", {"colour"}),
    ("Any preferred finish colour, like black or white?", {"colour", "finish"}),
    ("What color should I look for?", {"colour"}),
    ("Tell me the colour you had in mind.", {"colour"}),
    ("Do you need it in a specific colour?", {"colour"}),
    ("colour pls", {"colour"}),
    ("Would red be alright?", {"colour"}),
    # size
    ("What size fits you?", {"size"}),
    ("Which size should I pick?", {"size"}),
    ("Do you know what size you take?", {"size"}),
    ("Large or extra large?", {"size"}),
    ("Tell me your sizing so I can filter.", {"size"}),
    ("How large do you need it?", {"size"}),
    ("wat size u need", {"size"}),
    # budget
    ("How much do you want to spend at most?", {"budget"}),
    ("What's the most you'd pay?", {"budget"}),
    ("Give me a price ceiling.", {"budget"}),
    ("Is money tight, or is price no object?", {"budget"}),
    ("What are you hoping to spend?", {"budget"}),
    ("Tell me your max budjet.", {"budget"}),
    ("Should I stay under a certain price?", {"budget"}),
    # rating
    ("Do reviews matter to you?", {"rating"}),
    ("What's the lowest star rating you'd accept?", {"rating"}),
    ("Should it be well reviewed?", {"rating"}),
    ("Minimum rating?", {"rating"}),
    ("Tell me how highly rated it must be.", {"rating"}),
    # delivery
    ("When do you need it delivered by?", {"delivery"}),
    ("How quickly does it need to arrive?", {"delivery"}),
    ("Is fast shipping important?", {"delivery"}),
    ("Do you need it by a certain day?", {"delivery"}),
    ("Is there a deadline for delivery?", {"delivery"}),
    ("How soon d'you need it?", {"delivery"}),
    ("Tell me how many days you can wait for it.", {"delivery"}),
    # quantity
    ("How many of them do you want?", {"quantity"}),
    ("What quantity should I add?", {"quantity"}),
    ("Just the one, or more?", {"quantity"}),
    ("How many units do you need?", {"quantity"}),
    # which order / item
    ("Which order are you asking about?", {"order"}),
    ("Could you give me the order number?", {"order"}),
    ("Which of your orders is it?", {"order"}),
    ("What day did you purchase it?", {"order", "date"}),
    ("Which item is it you want to return?", {"item"}),
    ("Which product do you mean?", {"item"}),
    ("Tell me which one you're talking about.", {"item"}),
    ("What's the name of the product?", {"item"}),
    # refund method, membership, gift, condition
    ("How would you like to be refunded?", {"refund"}),
    ("Do you want the refund on your card or as store credit?", {"refund"}),
    ("Would you prefer the money back to your card?", {"refund"}),
    ("Are you a Plus member?", {"member"}),
    ("Do you have a membership with us?", {"member"}),
    ("Was this bought as a gift?", {"gift"}),
    ("Did someone else buy it for you?", {"gift"}),
    ("Is it faulty?", {"condition"}),
    ("What's wrong with it?", {"condition"}),
    ("Why are you sending it back?", {"condition"}),
    ("Did it arrive damaged?", {"condition"}),
    # priority
    ("What's your top priority here?", {"priority"}),
    # "speed" alone is not read as delivery (tests/customer_requests.py labels "cost or speed" so)
    ("What matters most: price or speed?", {"priority", "budget"}),
    ("Which is more important to you, the price or the reviews?", {"priority", "budget", "rating"}),
    # several at once
    ("What size and colour do you want?", {"size", "colour"}),
    ("Any brand or budget in mind?", {"brand", "budget"}),
    ("Tell me your budget and how soon you need it.", {"budget", "delivery"}),
    ("Which colour? And what's your price limit?", {"colour", "budget"}),
    ("Preferred brand, size and colour?", {"brand", "size", "colour"}),
    # open questions
    ("Anything else I should know?", {"generic"}),
    ("Is there anything else you're looking for in it?", {"generic"}),
    ("Any other requirements?", {"generic"}),
    ("Tell me a bit more about it.", {"generic"}),
    ("What else matters to you?", {"generic"}),
    # unrelated, or asking nothing
    ("How's your day going?", set()),
    ("Did you see the game last night?", set()),
    ("What's the weather like where you are?", set()),
    ("Do you like cats?", set()),
    ("Here are three options I found.", set()),
    ("I'll search the catalog now.", set()),
    ("Great, I've added it to your cart.", set()),
    ("Can you hear me?", set()),
    ("What's your name?", set()),
    ("Is it raining there?", set()),
))

# A second batch, written after the first batch's fixes and scored once, without tuning.
AUDIT_SECOND: tuple[tuple[str, frozenset[str]], ...] = tuple((text, frozenset(topics)) for text, topics in (
    ("Black, white, red, blue or green?", {"colour"}),
    ("S, M, L or XL?", {"size"}),
    ("Under $20, $50 or $100?", {"budget"}),
    ("Do you want next-day delivery?", {"delivery"}),
    ("Which make and model?", {"brand", "model"}),
    ("Is the order from last week the one?", {"order"}),
    ("Shall I go for the cheapest?", {"budget"}),
    ("Should it have at least four stars?", {"rating"}),
    ("How many do u need", {"quantity"}),
    ("Tell me whether you're a member.", {"member"}),
    ("Is it for you or is it a present?", {"gift"}),
    ("Any idea what caused the fault?", {"condition"}),
    ("Which refund option suits you?", {"refund"}),
    ("Do you prefer Sony or Bose?", {"brand"}),
    ("What else?", {"generic"}),
    ("Anything more you can share?", {"generic"}),
    ("Hope you're well!", set()),
    ("Let me check that for you.", set()),
    ("Do you want me to keep looking?", set()),
    ("Shall I place the order now?", set()),
    ("Would you like a receipt by email?", set()),
    ("I've found a great one, want to see it?", set()),
    ("Which one of these three do you like best?", {"item"}),
    ("How much can you spend and which brand?", {"budget", "brand"}),
    ("Pick a colour: black or navy.", {"colour"}),
))

# Probes written after the second batch: topics named only to set them aside, "order" as a verb,
# "damaged on arrival", a day as a deadline.
AUDIT_THIRD: tuple[tuple[str, frozenset[str]], ...] = tuple((text, frozenset(topics)) for text, topics in (
    ("No need to tell me your budget, but which colour?", {"colour"}),
    ("Apart from the brand, anything else?", {"generic"}),
    ("Other than price, any preferences?", {"generic"}),
    ("Not asking about delivery, just the brand?", {"brand"}),
    ("Aside from the colour, is there anything else I should know?", {"generic"}),
    ("Should I order two?", {"quantity"}),
    ("Shall I order it for you now?", set()),
    ("Was it damaged on arrival?", {"condition"}),
    ("Do you want it by Friday?", {"delivery"}),
    ("Besides size, what matters?", {"priority"}),
))

AUDIT_ALL = AUDIT + AUDIT_SECOND + AUDIT_THIRD
