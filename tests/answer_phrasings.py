"""The phrasing table of tests/test_answers.py: answers written the way people and chat models
write them, each with the value a person reads in it, or NOT (no answer) or HEDGE (several
values offered: AMBIGUOUS). Questions are the ones the environments ask (scenarios/envs/policy.py).
"""

from __future__ import annotations

from verishop.scenarios.answers import AMBIGUOUS

HEDGE = AMBIGUOUS
NOT = None

# --- yes / no: (question, answer, reading) ---------------------------------------------------

Q_RETURN = "Can I return the socks I bought from you?"
Q_STILL = "Delivery was on March 3, 2026. Can I still return the blender?"
Q_CANCEL = "Can I cancel a purchase free of charge while it is still processing?"
Q_CANCEL_SHIPPED = "Can I cancel a purchase free of charge after it has shipped?"
Q_FEE = "Is there a restocking fee if I return an opened charger because I changed my mind?"
Q_DEFECT_FEE = "The headphones arrived defective. Is there a restocking fee if I return the opened headphones?"
Q_SHIP = "I'm a Verishop Plus member. Will a $31.49 purchase ship free?"

YES_NO: list[tuple[str | None, str | None, object]] = [
    # plain particles
    (Q_RETURN, "yes", "yes"), (Q_RETURN, "Yes, you can.", "yes"), (Q_RETURN, "Yes! It's still within the window.", "yes"),
    (Q_RETURN, "Yep.", "yes"), (Q_RETURN, "Yeah, that's fine.", "yes"), (Q_RETURN, "Yup, go ahead.", "yes"),
    (Q_RETURN, "no", "no"), (Q_RETURN, "No.", "no"), (Q_RETURN, "Nope.", "no"), (Q_RETURN, "Nah, sorry.", "no"),
    (Q_RETURN, "No, I'm afraid not.", "no"), (Q_RETURN, "No, you can't, I'm sorry.", "no"),
    # adverb + negation idioms
    (Q_RETURN, "Absolutely not.", "no"), (Q_RETURN, "Certainly not, socks are final sale.", "no"),
    (Q_RETURN, "Of course not.", "no"), (Q_RETURN, "Sure can't.", "no"), (Q_RETURN, "Definitely not.", "no"),
    (Q_RETURN, "Not at all, I'm afraid.", "no"), (Q_RETURN, "Unfortunately not.", "no"), (Q_RETURN, "Sadly, no.", "no"),
    (Q_RETURN, "I'm afraid not: socks are final sale for hygiene reasons.", "no"),
    (Q_RETURN, "Afraid not.", "no"), (Q_RETURN, "Regrettably not.", "no"), (Q_RETURN, "Not really, no.", "no"),
    (Q_RETURN, "I'm sorry, but no.", "no"), (Q_RETURN, "Sorry, no: socks can't be returned.", "no"),
    (Q_RETURN, "I don't think so, socks are final sale.", "no"), (Q_RETURN, "Certainly not for socks.", "no"),
    (Q_RETURN, "Definitely not - they're final sale.", "no"), (Q_RETURN, "Absolutely not, sorry!", "no"),
    (Q_RETURN, "Unfortunately, you can't return socks.", "no"), (Q_RETURN, "I'm afraid you cannot return socks.", "no"),
    (Q_RETURN, "It can't be returned, sorry.", "no"), (Q_RETURN, "Socks are final sale, so no.", "no"),
    (Q_RETURN, "Socks are final sale and cannot be returned.", "no"),
    (Q_RETURN, "They're non-returnable: final sale for hygiene reasons.", "no"),
    (Q_RETURN, "Sadly they're not returnable.", "no"), (Q_RETURN, "The short answer is no.", "no"),
    (Q_RETURN, "**No** - socks are final sale.", "no"), (Q_RETURN, "You can't, unfortunately.", "no"),
    # positive adverbs, apologetic yes
    (Q_RETURN, "Absolutely, you can return it.", "yes"), (Q_RETURN, "Of course you can return it.", "yes"),
    (Q_RETURN, "Certainly!", "yes"), (Q_RETURN, "Sure can!", "yes"), (Q_RETURN, "Of course.", "yes"),
    (Q_RETURN, "Definitely, it's returnable.", "yes"), (Q_RETURN, "Sure, you can send it back.", "yes"),
    (Q_RETURN, "You bet.", "yes"), (Q_RETURN, "Indeed you can.", "yes"), (Q_RETURN, "You can.", "yes"),
    (Q_RETURN, "You can return it within 30 days of delivery.", "yes"),
    (Q_RETURN, "It's returnable within 30 days.", "yes"), (Q_RETURN, "That item is eligible for return.", "yes"),
    (Q_RETURN, "I'm afraid so.", "yes"), (Q_RETURN, "Afraid so.", "yes"),
    (Q_RETURN, "Sadly you can, but only within the window.", "yes"),
    (Q_RETURN, "Unfortunately yes, but you'll pay return shipping.", "yes"),
    (Q_RETURN, "Yes, they're not final sale.", "yes"), (Q_RETURN, "They aren't final sale, so you can.", "yes"),
    # reassurance and agreement
    (Q_RETURN, "No problem, you can return it.", "yes"), (Q_RETURN, "No worries — yes.", "yes"),
    (Q_RETURN, "Not a problem.", "yes"), (Q_RETURN, "Yes, no problem!", "yes"),
    (Q_RETURN, "Yes, no problem, you can return it.", "yes"), (Q_RETURN, "Yes, no.", HEDGE),
    (Q_RETURN, "Right now socks can't be returned: they're final sale.", "no"), (Q_RETURN, "No problem at all!", "yes"),
    (Q_RETURN, "No worries, you can send it back within 30 days.", "yes"),
    (Q_RETURN, "Not a problem at all - you can return it.", "yes"), (Q_RETURN, "Correct, you can return it.", "yes"),
    (Q_RETURN, "That's right, you can.", "yes"), (Q_RETURN, "Great question! Yes, you can.", "yes"),
    (Q_RETURN, "Thanks for asking! Unfortunately, no.", "no"),
    (Q_RETURN, "Sure! Let me check that for you.", NOT), (Q_RETURN, "Of course, let me look into it.", NOT),
    # can I still return (dates)
    (Q_STILL, "Yes, you still can.", "yes"), (Q_STILL, "You can still return it until March 17.", "yes"),
    (Q_STILL, "You're still within the window, so yes.", "yes"), (Q_STILL, "You have 12 days left.", "yes"),
    (Q_STILL, "It's not too late: you have until April 2.", "yes"), (Q_STILL, "You're fine, go ahead.", "yes"),
    (Q_STILL, "Sorry, the window has closed.", "no"), (Q_STILL, "The return window expired on March 18.", "no"),
    (Q_STILL, "No, it's too late now.", "no"), (Q_STILL, "You're past the 14-day window, so no.", "no"),
    (Q_STILL, "Unfortunately the return period has ended.", "no"), (Q_STILL, "It's no longer returnable.", "no"),
    (Q_STILL, "I'm afraid you're outside the return window.", "no"),
    (Q_STILL, "Sadly the deadline has passed.", "no"),
    # cancelling
    (Q_CANCEL, "Yes, free of charge while it's processing.", "yes"), (Q_CANCEL, "You can cancel it for free.", "yes"),
    (Q_CANCEL, "Yes, there's no fee to cancel.", "yes"), (Q_CANCEL, "It's free of charge while processing.", "yes"),
    (Q_CANCEL, "Of course, just ask us to cancel it.", "yes"), (Q_CANCEL, "Sure can, at no cost.", "yes"),
    (Q_CANCEL_SHIPPED, "No, once shipped it has to be returned instead.", "no"),
    (Q_CANCEL_SHIPPED, "Shipped orders must be returned instead.", "no"),
    (Q_CANCEL_SHIPPED, "Of course not: after shipping you'd return it instead.", "no"),
    (Q_CANCEL_SHIPPED, "It can't be cancelled once shipped, but you can return it.", "no"),
    (Q_CANCEL_SHIPPED, "Unfortunately, no. You'll need to return it once it arrives.", "no"),
    (Q_CANCEL_SHIPPED, "Not after it has shipped.", "no"), (Q_CANCEL_SHIPPED, "Sadly you can't.", "no"),
    # fees: the gist answers "is there a fee?"
    (Q_FEE, "Correct, there is no fee.", "no"), (Q_FEE, "That's right, no fee applies.", "no"),
    (Q_FEE, "No, there's no restocking fee.", "no"), (Q_FEE, "No, there isn't one.", "no"),
    (Q_FEE, "There's no restocking fee.", "no"), (Q_FEE, "No restocking fee applies.", "no"),
    (Q_FEE, "Nope, it's free of charge.", "no"), (Q_FEE, "You won't be charged anything.", "no"),
    (Q_FEE, "There isn't any fee.", "no"), (Q_FEE, "None at all.", "no"), (Q_FEE, "Not at all.", "no"),
    (Q_FEE, "Good news: there is no fee on any return.", "no"), (Q_FEE, "You'll get a full refund.", "no"),
    (Q_FEE, "We don't charge restocking fees.", "no"), (Q_FEE, "No fee, you get everything back.", "no"),
    (Q_FEE, "There is no restocking fee on any return, so no.", "no"),
    (Q_FEE, "Yes, there is.", "yes"), (Q_FEE, "Unfortunately yes, there is a 15% fee.", "yes"),
    (Q_FEE, "I'm afraid so: a 15% restocking fee applies.", "yes"),
    (Q_FEE, "Yes, a 10% restocking fee applies to opened electronics.", "yes"),
    (Q_FEE, "There's a 15% restocking fee.", "yes"), (Q_FEE, "A 10 percent restocking fee will apply.", "yes"),
    (Q_FEE, "Sadly yes: 15%.", "yes"), (Q_FEE, "We charge a 15% restocking fee on opened electronics.", "yes"),
    (Q_FEE, "Yes, you'll be charged a restocking fee of 10%.", "yes"),
    (Q_FEE, "There is, I'm afraid.", "yes"), (Q_FEE, "Yes, there's no fee.", HEDGE),
    (Q_DEFECT_FEE, "No, defective items carry no restocking fee.", "no"),
    (Q_DEFECT_FEE, "Since it arrived defective, the fee is waived.", "no"),
    (Q_DEFECT_FEE, "No fee applies to defective items.", "no"),
    (Q_DEFECT_FEE, "Correct, no restocking fee for defective items.", "no"),
    (Q_DEFECT_FEE, "Yes, since nothing is wrong with it, a 15% fee applies.", "yes"),
    # free shipping
    (Q_SHIP, "Yes, it will ship free.", "yes"), (Q_SHIP, "Yes, it will.", "yes"), (Q_SHIP, "It will.", "yes"),
    (Q_SHIP, "It ships free of charge.", "yes"), (Q_SHIP, "You qualify for free shipping.", "yes"),
    (Q_SHIP, "Shipping is on us.", "yes"), (Q_SHIP, "As a Plus member you get free shipping on that.", "yes"),
    (Q_SHIP, "Absolutely, shipping is free.", "yes"), (Q_SHIP, "There's no shipping charge.", "yes"),
    (Q_SHIP, "You won't pay anything for shipping.", "yes"), (Q_SHIP, "It's over the $25.00 threshold, so yes.", "yes"),
    (Q_SHIP, "No, I'm afraid not.", "no"), (Q_SHIP, "No, it won't ship free.", "no"), (Q_SHIP, "It won't.", "no"),
    (Q_SHIP, "It doesn't qualify for free shipping.", "no"), (Q_SHIP, "Shipping isn't free on that one.", "no"),
    (Q_SHIP, "You're short of the $35.00 Plus threshold.", "no"), (Q_SHIP, "Standard shipping of $4.99 applies.", "no"),
    (Q_SHIP, "Unfortunately you'll pay $5.99 for shipping.", "no"), (Q_SHIP, "Sadly not.", "no"),
    (Q_SHIP, "It's below the free-shipping minimum, so no.", "no"),
    # chat-model explanations around the answer
    (Q_RETURN, "Unfortunately, socks are final sale for hygiene reasons, so they can't be returned.", "no"),
    (Q_RETURN, "Socks fall under our final sale policy, which means returns aren't accepted.", "no"),
    (Q_RETURN, "Per our policy, socks and pillows are final sale and cannot be returned. So unfortunately, no.", "no"),
    (Q_RETURN, "Yes, as long as it's within 30 days of delivery, you can send it back.", "yes"),
    (Q_RETURN, "Great news, the pillow is returnable!", "yes"),
    (Q_STILL, "Yes, you're still within your 45-day return window (delivered 20 days ago).", "yes"),
    (Q_STILL, "I'm sorry, but it's been 50 days since delivery and the window is 45 days, so it can no longer "
              "be returned.", "no"),
    (Q_STILL, "Good news: you still have 12 days to return it.", "yes"),
    (Q_FEE, "Yes. Opened electronics returned because you changed your mind carry a 15% restocking fee.", "yes"),
    (Q_FEE, "Since you changed your mind, a 10% restocking fee would be deducted from your refund.", "yes"),
    (Q_SHIP, "Yes! As a Plus member, purchases of $25.00 or more ship free, so your $31.49 order qualifies.", "yes"),
    (Q_SHIP, "Unfortunately no, Plus members get free shipping from $35.00, and $31.49 is below that.", "no"),
    (Q_SHIP, "It won't ship free: the Plus threshold is $35.00, so you'd pay $4.99 standard shipping.", "no"),
    (Q_CANCEL_SHIPPED, "No. Once an order has shipped it can't be cancelled; you'd need to return it instead.", "no"),
    (Q_RETURN, "Socks are excluded from returns.", "no"), (Q_RETURN, "You're able to return it within 30 days.", "yes"),
    (Q_RETURN, "That's a no, unfortunately: socks are final sale.", "no"),
    (Q_RETURN, "I wish I could say yes, but socks are final sale.", "no"),
    (Q_STILL, "Unfortunately your return window has already closed.", "no"),
    (Q_STILL, "Sorry, you're outside the 30-day return window.", "no"), (Q_STILL, "Yes! 12 days remain.", "yes"),
    (Q_FEE, "Zero restocking fee.", "no"), (Q_FEE, "No, returns are free.", "no"), (Q_FEE, "Yes, 15%.", "yes"),
    (Q_SHIP, "Not quite, you're $3.51 short of free shipping.", "no"), (Q_SHIP, "Your order ships free!", "yes"),
    # Unicode and formatting
    (Q_RETURN, "ｙｅｓ", "yes"), (Q_RETURN, "ＮＯ", "no"), (Q_RETURN, "Yes,\u00a0you\u00a0can.", "yes"),
    (Q_RETURN, "\u201cNo,\u201d I\u2019m afraid.", "no"), (Q_RETURN, "I\u2019m afraid not.", "no"),
    (Q_RETURN, "YES!!!", "yes"), (Q_RETURN, "  no  ", "no"), (Q_FEE, "No \u2014 there\u2019s no fee.", "no"),
    # hedges and non-answers
    (Q_RETURN, "Yes or no, depending on the item.", HEDGE), (Q_RETURN, "yes / no", HEDGE), (Q_RETURN, "Yes. No.", HEDGE),
    (Q_RETURN, "Maybe.", HEDGE), (Q_RETURN, "Maybe yes.", HEDGE), (Q_RETURN, "Possibly, I'm not sure.", HEDGE),
    (Q_RETURN, "I can't say for sure, you might be able to.", HEDGE), (Q_RETURN, "Yes and no.", HEDGE),
    (Q_RETURN, "It depends.", NOT), (Q_RETURN, "It depends on the item: yes for most, no for socks.", HEDGE),
    (Q_RETURN, "I'm not sure.", NOT), (Q_RETURN, "Let me check our policy.", NOT), (Q_RETURN, "", NOT),
    (Q_RETURN, None, NOT), (Q_RETURN, "Thanks for your patience.", NOT), (Q_RETURN, "One moment please.", NOT),
    (Q_FEE, "Maybe there's a fee, maybe not.", HEDGE), (Q_SHIP, "It may or may not ship free.", HEDGE),
    (Q_FEE, "Hmm, I don't know.", NOT),
    # without a question: the gist of can/can't and of a fee
    (None, "Yes, you can.", "yes"), (None, "No, you cannot.", "no"), (None, "There's no restocking fee.", "no"),
    (None, "You can still return it until March 3.", "yes"), (None, "Absolutely not.", "no"),
    # a verdict said as a noun, "won't be possible", time left, a fee that isn't there, and a
    # threshold or requirement restated beside the answer (never the answer itself)
    (Q_RETURN, "That's a no, unfortunately.", "no"), (Q_RETURN, "That's a yes!", "yes"),
    (Q_RETURN, "It's a hard no on socks, sorry.", "no"), (Q_RETURN, "That's a no-brainer: yes.", "yes"),
    (Q_RETURN, "Unfortunately that won't be possible.", "no"), (Q_RETURN, "Returns won't be accepted for socks.", "no"),
    (Q_STILL, "You still have time: until April 2.", "yes"), (Q_STILL, "There's still time to send it back.", "yes"),
    (Q_FEE, "There isn't one.", "no"), (Q_FEE, "There's none.", "no"),
    (Q_SHIP, "It won't, free shipping starts at $35.", "no"),
    (Q_SHIP, "No — you'd need to spend $35 for free shipping.", "no"),
    (Q_SHIP, "Not this time: free shipping kicks in at $35.", "no"),
    (Q_SHIP, "Yes, free shipping starts at $25 for members.", "yes"),
    (Q_SHIP, "No, it ships free.", HEDGE),
    # a negated "something we can", "no can do", time that is up; another action's possibility
    (Q_RETURN, "It's not something we can take back.", "no"), (Q_RETURN, "No can do, sorry.", "no"),
    (Q_STILL, "The 30 days are up, I'm afraid.", "no"),
    (Q_CANCEL_SHIPPED, "You can't cancel it now, but a return is possible.", "no"),
    (Q_CANCEL_SHIPPED, "A return is possible, but you can't cancel it.", "no"),
    (Q_CANCEL, "Yes, a cancellation is possible while it is processing.", "yes"),
]

# --- numbers: (question, given, answer, reading) ---------------------------------------------

Q_DAYS = "How many days after delivery do I have to return the blender?"
Q_LEFT = "Delivery was on March 3, 2026. How many days do I have left to return the yoga mat?"
Q_BUSINESS = "How many business days does my refund take once you receive my return?"
Q_THRESHOLD = "What is the smallest purchase, in dollars, that ships free?"
Q_SHIPPING = "How much does standard shipping cost when a purchase doesn't ship free?"
Q_PERCENT = "What percentage restocking fee applies if I return an opened charger because I changed my mind?"
Q_REFUND = "I paid $41.49 for the charger and opened it, but I changed my mind. How much will I get back if I return it?"
Q_OVERSIZE = "How much will shipping cost if I buy a $120.99 desk? I'm not a member."
Q_ADJUST = "If an item's price drops after delivery, within how many days can I get the difference refunded?"
POLICY = (30.0, 14.0, 15.0, 4.99, 35.0, 7.0, 17.0, 21.0, 30.0, 60.0, 29.99, 5.0, 2.0)

NUMBERS: list[tuple[str | None, tuple[float, ...], str | None, object]] = [
    # digits and words
    (Q_DAYS, (), "30", 30.0), (Q_DAYS, (), "30 days", 30.0), (Q_DAYS, (), "thirty days", 30.0),
    (Q_DAYS, (), "Thirty.", 30.0), (Q_DAYS, (), "forty-five days", 45.0), (Q_DAYS, (), "twenty one days", 21.0),
    (Q_DAYS, (), "You have 45 days.", 45.0), (Q_DAYS, (), "It's sixty days.", 60.0),
    (Q_DAYS, (), "Forty-four days from delivery.", 44.0), (Q_DAYS, (), "one hundred ninety-four days", 194.0),
    (Q_DAYS, (), "You have 45 days from delivery, so until March 3, 2026.", 45.0),
    (Q_DAYS, (), "You've got 30 days from the delivery date.", 30.0),
    (Q_DAYS, (), "The return window is **30 days**.", 30.0), (Q_DAYS, (), "30-day return window.", 30.0),
    (Q_DAYS, (), "Returns are accepted within 14 days of delivery.", 14.0),
    (Q_DAYS, (), "one day", 1.0), (Q_DAYS, (), "a hundred days", 100.0), (Q_DAYS, (), "two hundred and five", 205.0),
    # durations in words
    (Q_DAYS, (), "two weeks", 14.0), (Q_DAYS, (), "Two weeks from delivery.", 14.0), (Q_DAYS, (), "a fortnight", 14.0),
    (Q_DAYS, (), "You have a fortnight.", 14.0), (Q_DAYS, (), "a month", 30.0), (Q_DAYS, (), "One month.", 30.0),
    (Q_DAYS, (), "You have a month to send it back.", 30.0), (Q_DAYS, (), "two months", 60.0),
    (Q_DAYS, (), "a week", 7.0), (Q_DAYS, (), "about a month and a half", 45.0),
    (Q_DAYS, (), "A week and a half.", 10.5), (Q_DAYS, (), "half a month", 15.0), (Q_DAYS, (), "$45.00", 45.0), (Q_DAYS, (), "three weeks", 21.0), (Q_DAYS, (), "6 weeks", 42.0),
    (Q_DAYS, (), "48 hours", 2.0), (Q_DAYS, (), "It's 720 hours.", 30.0), (Q_DAYS, (), "36 hours", NOT),
    (Q_BUSINESS, (), "5 business days", 5.0), (Q_BUSINESS, (), "It takes five business days.", 5.0),
    (Q_BUSINESS, (), "Within 5 working days of us receiving it.", 5.0), (Q_BUSINESS, (), "A week.", NOT),
    # asked in business days, a week is 5 of them to some and 7 to others: only a figure in days answers
    (Q_BUSINESS, (), "About a week (5 business days).", 5.0), (Q_BUSINESS, (), "Within a week: 7 business days.", 7.0),
    (Q_BUSINESS, (), "Two weeks, give or take.", NOT),
    (Q_DAYS, (), "A full month.", 30.0), (Q_REFUND, (), "$41.49 minus $6.22, so $35.27.", 35.27),
    (Q_REFUND, (), "That's $35.27 once the 15% fee comes off.", 35.27),
    (Q_BUSINESS, (), "Refunds land within five (5) business days.", 5.0),
    # dates are not numbers of the answer
    (Q_LEFT, (), "Returns are accepted until 2026-03-03: 12 days left.", 12.0),
    (Q_LEFT, (), "You have 12 days left, until March 15.", 12.0), (Q_LEFT, (), "Until 3/15 - that's 12 days.", 12.0),
    (Q_LEFT, (), "12 days (the deadline is March 15, 2026).", 12.0),
    (Q_LEFT, (), "You have 12 days left: it was delivered 18 days ago.", 12.0),
    (Q_LEFT, POLICY, "12 days left of your 30-day window.", 12.0),
    (Q_LEFT, (), "You have twelve days left.", 12.0), (Q_LEFT, (), "Just 3 more days.", 3.0),
    # figures restated from the question or the policy, and denied alternatives
    (Q_DAYS, POLICY, "58 days (the usual window is 14 days).", 58.0),
    (Q_ADJUST, POLICY, "30 days (the usual return window is 14 days).", 30.0),
    (Q_DAYS, POLICY, "14 days; the standard window is 30 days but electronics get 14.", 14.0),
    (Q_DAYS, POLICY, "You have 30 days, where electronics normally have 14 days.", 30.0),
    (Q_DAYS, POLICY, "You have 44 days: 30 standard plus 14 for the holidays.", 44.0),
    (Q_DAYS, POLICY, "30 + 14 = 44 days.", 44.0), (Q_DAYS, (), "30 + 14 = 44 days.", 44.0),
    (Q_DAYS, (), "30 days, not 45.", 30.0), (Q_DAYS, (), "Not 45 but 30 days.", 30.0),
    (Q_DAYS, (), "It's 30 days rather than 45.", 30.0), (Q_DAYS, (), "30 days instead of the usual 45.", 30.0),
    (Q_DAYS, (), "It isn't 45 days; it's 30.", 30.0), (Q_DAYS, (), "30 (not 45) days.", 30.0),
    (Q_DAYS, (), "It used to be 45 days, now it's 30.", 30.0),
    (Q_DAYS, (), "You have 30 days, no more than that.", 30.0), (Q_DAYS, (), "Not more than 30 days.", 30.0),
    (Q_DAYS, POLICY, "Your window is 51 days (30 + 21 holiday extension).", 51.0),
    (Q_DAYS, POLICY, "51 days in total: the 30-day window and a 21-day holiday extension.", 51.0),
    (Q_REFUND, (), "On your $41.49 purchase it comes to $35.27.", 35.27),
    (Q_REFUND, (), "You'll get $35.27 back.", 35.27), (Q_REFUND, (), "$35.27", 35.27),
    (Q_REFUND, (), "From the $41.49 you paid, a 15% fee is deducted, so you'll receive $35.27.", 35.27),
    (Q_REFUND, (), "$41.49 minus 15% = $35.27.", 35.27), (Q_REFUND, (), "You'd get back $35.27 of the $41.49.", 35.27),
    (Q_REFUND, (), "35.27 dollars, refunded within 5 business days.", 35.27),
    (Q_REFUND, (), "thirty-five dollars and twenty-seven cents", 35.27),
    (Q_REFUND, (), "thirty-five twenty-seven", 35.27), (Q_REFUND, (), "35 dollars 27", 35.27),
    (Q_REFUND, (), "Your refund would be $35.27 (your $41.49 minus the $6.22 fee).", 35.27),
    (Q_REFUND, (), "$35.27, not the full $41.49.", 35.27),
    # money in words and spoken forms
    (Q_SHIPPING, (), "It costs $7.99.", 7.99), (Q_SHIPPING, (), "7 dollars and 99 cents", 7.99),
    (Q_SHIPPING, (), "seven ninety-nine", 7.99), (Q_SHIPPING, (), "Seven dollars ninety-nine.", 7.99),
    (Q_SHIPPING, (), "It's seven ninety nine.", 7.99), (Q_SHIPPING, (), "$7.99 per order.", 7.99),
    (Q_SHIPPING, (), "Standard shipping is 7.99 USD.", 7.99), (Q_SHIPPING, (), "USD 7.99", 7.99),
    (Q_SHIPPING, (), "It's $ 4.99.", 4.99), (Q_SHIPPING, (), "four ninety-nine", 4.99),
    (Q_SHIPPING, (), "five dollars and ninety-nine cents", 5.99), (Q_SHIPPING, (), "5.99 dollars", 5.99),
    (Q_SHIPPING, (), "It's $4.99, and orders of $35.00 or more ship free.", 4.99),
    (Q_SHIPPING, POLICY, "$4.99, unless your order is $35 or more.", 4.99),
    (Q_THRESHOLD, (), "$35.00", 35.0), (Q_THRESHOLD, (), "Thirty-five dollars.", 35.0),
    (Q_THRESHOLD, (), "Orders of $49 or more ship free.", 49.0), (Q_THRESHOLD, (), "$1,250.00", 1250.0),
    (Q_THRESHOLD, (), "Seventy-five bucks.", 75.0), (Q_THRESHOLD, (), "It's 75 dollars.", 75.0),
    (Q_THRESHOLD, (), "twenty-five dollars", 25.0), (Q_THRESHOLD, (), "$25 or more.", 25.0),
    (Q_OVERSIZE, (), "twelve dollars fifty", 12.5), (Q_OVERSIZE, (), "Twelve fifty.", 12.5),
    (Q_OVERSIZE, (), "$12.98", 12.98), (Q_OVERSIZE, (), "It comes to $34.98.", 34.98),
    (Q_OVERSIZE, POLICY, "$34.98: $4.99 standard shipping plus the $29.99 oversize surcharge.", 34.98),
    (Q_OVERSIZE, (), "$4.99 + $29.99 = $34.98", 34.98), (Q_OVERSIZE, (), "thirty-four ninety-eight", 34.98),
    (Q_OVERSIZE, (), "ninety-nine cents", 0.99), (Q_OVERSIZE, (), "Shipping on your $120.99 desk is $29.99.", 29.99),
    (Q_OVERSIZE, (), "It ships free, but the surcharge of $24.99 still applies, so $24.99.", 24.99),
    (Q_REFUND, (), "With the 15% restocking fee ($6.22), you'd get $35.27 back.", 35.27),
    (Q_REFUND, (), "You'll receive $35.27 (the $41.49 price less a 15% restocking fee of $6.22).", 35.27),
    (Q_REFUND, (), "$41.49 × 0.85 = $35.27", 35.27),
    (Q_REFUND, (), "A 15% restocking fee applies, so your refund will be $35.27.", 35.27),
    (Q_DAYS, POLICY, "You have 51 days: the standard 30-day window plus 21 days for the holidays.", 51.0),
    (Q_DAYS, POLICY, "**51 days.** That's 30 base days and 21 for the holidays.", 51.0),
    (Q_DAYS, POLICY, "51 days, 30 base + 21 holiday", 51.0), (Q_DAYS, (), "You get two months.", 60.0),
    (Q_THRESHOLD, POLICY, "Free shipping starts at $35.00 for non-members (Plus members: $24.50).", 35.0),
    (Q_SHIPPING, POLICY, "Standard shipping costs $4.99 per order; orders of $35.00+ ship free.", 4.99),
    (Q_REFUND, POLICY, "Refund: $41.49 − $6.22 = $35.27.", 35.27), (Q_REFUND, (), "$41.49 - $6.22 = $35.27", 35.27),
    (Q_OVERSIZE, POLICY, "Just the $29.99 oversize surcharge, since $120.99 is over the $35.00 free-shipping "
                         "threshold.", 29.99),
    (Q_OVERSIZE, POLICY, "$34.98 ($4.99 standard shipping + $29.99 oversize surcharge).", 34.98),
    (Q_DAYS, POLICY, "Your window is 51 days (30 + 21).", 51.0), (Q_DAYS, (), "30 days (or 45).", HEDGE),
    (Q_SHIPPING, (), "$4.99 (or $5.99).", HEDGE), (Q_REFUND, (), "$41.49 − 15% = $35.27", 35.27),
    # percentages
    (Q_PERCENT, (), "15%", 15.0), (Q_PERCENT, (), "A 15 percent fee applies.", 15.0),
    (Q_PERCENT, (), "fifteen percent", 15.0), (Q_PERCENT, (), "It's 10 per cent.", 10.0),
    (Q_PERCENT, (), "A ten percent restocking fee applies.", 10.0), (Q_PERCENT, (), "15 %", 15.0),
    (Q_PERCENT, (), "It's 15% of the price, refunded within 5 business days.", 15.0),
    (Q_PERCENT, (), "15% (so $6.22 on a $41.49 charger).", 15.0),
    # other days questions
    (Q_ADJUST, (), "Within 14 days of delivery.", 14.0), (Q_ADJUST, (), "Two weeks.", 14.0),
    (Q_ADJUST, (), "You can request it within 30 days.", 30.0), (Q_ADJUST, (), "A month.", 30.0),
    (Q_ADJUST, (), "Seven days.", 7.0), (Q_ADJUST, (), "A week from delivery.", 7.0),
    # Unicode
    (Q_DAYS, (), "３０ days", 30.0), (Q_DAYS, (), "30\u00a0days", 30.0), (Q_SHIPPING, (), "＄７.９９", 7.99),
    (Q_PERCENT, (), "１５％", 15.0), (Q_DAYS, (), "THIRTY DAYS", 30.0), (Q_DAYS, (), "Thirty\u2011days", 30.0),
    # hedges and non-answers
    (Q_DAYS, (), "30 or 45 days", HEDGE), (Q_DAYS, (), "30, 45, 60", HEDGE), (Q_DAYS, (), "between 14 and 30 days", HEDGE),
    (Q_DAYS, (), "thirty or forty days", HEDGE), (Q_DAYS, (), "30-45 days", HEDGE), (Q_DAYS, (), "30\u201345 days", HEDGE),
    (Q_DAYS, POLICY, "30 or 14 days.", HEDGE), (Q_DAYS, POLICY, "58 or 14 days.", HEDGE), (Q_DAYS, POLICY, "58 days, 14 days.", HEDGE),
    (Q_DAYS, POLICY, "58, 14", HEDGE), (Q_DAYS, POLICY, "You have 44 days, 30 plus 14 for the holidays.", 44.0),
    (Q_DAYS, (), "Either 30 or 45 days.", HEDGE), (Q_DAYS, (), "30/45 days", HEDGE), (Q_DAYS, (), "14 to 30 days", HEDGE),
    (Q_DAYS, (), "Maybe 30 days, I'm not sure.", HEDGE), (Q_DAYS, (), "I can't say, perhaps 30.", HEDGE),
    (Q_DAYS, (), "Probably 30 or so, maybe 45.", HEDGE), (Q_DAYS, (), "30, or maybe 45.", HEDGE),
    (Q_SHIPPING, (), "$4.99 or $5.99", HEDGE), (Q_SHIPPING, (), "seven or eight dollars", HEDGE),
    (Q_REFUND, (), "$35.27 or $41.49", HEDGE), (Q_PERCENT, (), "10% or 15%", HEDGE), (Q_PERCENT, (), "10-15%", HEDGE),
    (Q_DAYS, (), "no idea", NOT), (Q_DAYS, (), "", NOT), (Q_DAYS, (), None, NOT), (Q_DAYS, (), "Let me check.", NOT),
    (Q_DAYS, (), "It was delivered on March 3.", NOT), (Q_DAYS, (), "Your order W1234567 is eligible.", NOT),
    (Q_DAYS, (), "The one you bought is eligible.", NOT), (Q_DAYS, (), "Orders placed before 2pm ship same day.", NOT),
    (Q_REFUND, (), "You paid $41.49.", 41.49), (Q_SHIPPING, (), "It's free for orders over the threshold.", NOT),
    (None, (), "The one you bought ships free over $35.", 35.0), (None, (), "It costs $7.99.", 7.99),
]

# --- order status: (answer, reading) ---------------------------------------------------------

STATUS: list[tuple[str | None, object]] = [
    ("in_transit", "in_transit"), ("In-Transit", "in_transit"), ("It is in transit with the carrier.", "in_transit"),
    ("It's on its way!", "in_transit"), ("It's out for delivery today.", "in_transit"),
    ("It hasn't been delivered yet; it's on its way.", "in_transit"), ("It's on its way with the carrier.", "in_transit"),
    ("It is in transit.", "in_transit"), ("It's on the way to you with UPS.", "in_transit"),
    ("It's with the courier.", "in_transit"), ("It's currently with FedEx.", "in_transit"),
    ("Your package is en route.", "in_transit"), ("It's in the mail.", "in_transit"),
    ("It's making its way to you.", "in_transit"), ("It's still in transit and should be delivered Friday.", "in_transit"),
    ("It's on its way and will arrive by Friday.", "in_transit"), ("Currently in the hands of DHL.", "in_transit"),
    ("It was processing, now it's on its way.", "in_transit"), ("It's not delivered yet - it's in transit.", "in_transit"),
    ("It shipped Monday and it's now in transit.", "in_transit"),
    ("It has been handed to the carrier and is now out for delivery.", "in_transit"),
    ("Good news! Your order is on the way.", "in_transit"), ("It's expected to be delivered on March 9; "
                                                             "right now it's in transit.", "in_transit"),
    ("It's still being processed.", "processing"), ("It hasn't shipped yet.", "processing"),
    ("Not shipped yet.", "processing"), ("pending", "processing"), ("It is still being prepared at our warehouse.", "processing"),
    ("We're still processing it.", "processing"), ("It hasn't left our warehouse yet.", "processing"),
    ("It's being packed right now.", "processing"), ("It has not been dispatched yet.", "processing"),
    ("It's awaiting shipment.", "processing"), ("It's processing and will ship soon.", "processing"),
    ("It's still processing; it should ship tomorrow and be delivered next week.", "processing"),
    ("It's yet to ship.", "processing"), ("Processing.", "processing"), ("PROCESSING", "processing"),
    ("Delivered on March 3.", "delivered"), ("It was delivered on March 3, 2026.", "delivered"),
    ("It arrived last week.", "delivered"), ("It arrived on March 3, 2026.", "delivered"),
    ("It was delivered on March 3, 2026, to your address.", "delivered"),
    ("It shipped last week and was delivered two days ago.", "delivered"),
    ("It isn't processing; it's delivered.", "delivered"), ("It shipped and was delivered.", "delivered"),
    ("It was shipped with UPS on March 1 and delivered on March 4.", "delivered"),
    ("It's already been delivered.", "delivered"), ("UPS dropped it off on Tuesday.", "delivered"),
    ("It was left at your door on March 4.", "delivered"), ("It was signed for on Monday.", "delivered"),
    ("It's not in transit anymore, it was delivered yesterday.", "delivered"),
    ("Your order has arrived!", "delivered"), ("It was delivered. It is no longer in transit.", "delivered"),
    ("It has shipped.", "shipped"), ("dispatched", "shipped"), ("It's been shipped with UPS.", "shipped"),
    ("Good news, it has shipped with FedEx.", "shipped"), ("It has been handed to the carrier.", "shipped"),
    ("It was picked up by UPS this morning.", "shipped"), ("It left our warehouse yesterday.", "shipped"),
    ("It was sent out on Monday.", "shipped"), ("It was dispatched and should arrive Thursday.", "shipped"),
    ("It has shipped; it'll be in transit once the carrier scans it.", "shipped"),
    ("It was processing until Monday, when it shipped.", "shipped"), ("Shipped!", "shipped"),
    ("It has been sent.", "shipped"), ("It was handed over to USPS today.", "shipped"),
    ("I'm sorry, that order was cancelled.", "cancelled"), ("canceled", "cancelled"),
    ("That order was canceled, I'm afraid.", "cancelled"), ("I'm sorry, it was cancelled.", "cancelled"),
    ("It was cancelled before it shipped.", "cancelled"),
    ("It was processing, then it shipped, and now it's been delivered.", "delivered"), ("It was cancelled while processing.", "cancelled"),
    ("It was cancelled, so it won't be delivered.", "cancelled"), ("The order was called off.", "cancelled"),
    ("ＤＥＬＩＶＥＲＥＤ", "delivered"), ("It\u2019s on its way\u00a0with\u00a0UPS.", "in_transit"),
    ("It was delivered \u2014 on March 3.", "delivered"), ("in\u2011transit", "in_transit"),
    ("It was delivered, so it can't be cancelled now.", "delivered"),
    # hedges and non-answers
    ("shipped / in transit / delivered", HEDGE), ("Shipped, in transit, delivered.", HEDGE),
    ("processing; shipped; in transit; delivered; cancelled", HEDGE), ("Delivered. Cancelled.", HEDGE),
    ("It's shipped and delivered and in transit.", HEDGE), ("processing or shipped", HEDGE),
    ("delivered or not, I can't say", HEDGE), ("It's either in transit or delivered.", HEDGE),
    ("It may have been delivered, I'm not sure.", NOT), ("I think it shipped, maybe it's delivered.", HEDGE),
    ("Not sure if it's shipped or still processing.", HEDGE), ("It's in transit or out for delivery, or delivered.", HEDGE),
    ("somewhere", NOT), ("", NOT), (None, NOT), ("Let me look up your order.", NOT),
    ("It should be delivered by Friday.", NOT), ("It will ship tomorrow.", NOT),
    ("It hasn't been delivered.", NOT), ("It hasn't arrived.", NOT), ("Your order W1234567 has 2 items.", NOT),
    ("It'll be delivered once it ships.", NOT), ("It's expected to arrive on March 9.", NOT),
    ("UPS picked it up this morning.", "shipped"), ("The courier collected it yesterday.", "shipped"),
    ("It's waiting to be packed.", "processing"), ("It's awaiting pickup by the carrier.", "processing"),
    ("FedEx has it now.", "shipped"),
]

# --- refund method: (answer, reading) --------------------------------------------------------

CHOICES: list[tuple[str | None, object]] = [
    ("store credit", "store credit"), ("It is refunded as store credit.", "store credit"),
    ("Gift returns are refunded as store credit.", "store credit"), ("You'll get store credit.", "store credit"),
    ("You'll get store credit instead of a refund to your original payment method.", "store credit"),
    ("It goes back as store credit, not to the original payment method.", "store credit"),
    ("As a gift card.", "store credit"), ("It's credited to your account as store credit.", "store credit"),
    ("Store credit, not your card.", "store credit"), ("You receive a voucher for the amount.", "store credit"),
    ("Not to your card: as store credit.", "store credit"),
    ("Gift returns aren't refunded to your card; they go back as store credit.", "store credit"),
    ("Unlike regular returns, which go back to your card, gift returns become store credit.", "store credit"),
    ("Rather than the original payment method, you'll receive store credit.", "store credit"),
    ("STORE CREDIT", "store credit"), ("ｓｔｏｒｅ ｃｒｅｄｉｔ", "store credit"),
    ("It'll be added to your account balance.", "store credit"),
    ("Unfortunately it can't go back to your card, you'll get store credit.", "store credit"),
    ("To your original payment method.", "original payment method"),
    ("Back to your card.", "original payment method"), ("It's refunded to the card you paid with.", "original payment method"),
    ("To the original payment method, not store credit.", "original payment method"),
    ("We refund the card you used.", "original payment method"), ("Via PayPal, the way you paid.", "original payment method"),
    ("Store credit or your original payment method.", HEDGE), ("as store credit or to your card", HEDGE),
    ("Either store credit or a refund to your card.", HEDGE), ("Store credit / original payment", HEDGE),
    ("I'm not sure, probably store credit.", HEDGE), ("Maybe store credit.", HEDGE),
    ("You can choose store credit or your card.", HEDGE),
    ("a refund", NOT), ("", NOT), (None, NOT), ("It's refunded.", NOT), ("Let me check how gift returns work.", NOT),
    ("Credit to your Verishop account.", "store credit"), ("It's credited to your account.", "store credit"),
    ("It's credited to your account, not your card.", "store credit"),
]
