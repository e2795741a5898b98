"""An independent, hand-written table of agent answers for the reader (issue 28, audit pass).

Written by someone who had not tuned the reader, with another composition than
tests/answer_corpus.py: other verbs and question topics the policy, status and return
environments ask (price adjustment, oversized surcharge, refund method, refund delay, status
told through a carrier or a history), other apologies, conditions, hedges and doubts, British
and American spellings, numbers as words, currency formats, dates and typos. Each answer is
labelled with the one reading a careful person takes from it, or None when no single reading
survives (the reader must not commit). An estimate ("around $30") names one value: it is read as
that value, and judged against the answer like any other. Scored as a whole, like the held-out part of the corpus:
precision ≥ 99.5%, recall reported (`tests/test_answer_audit.py`).
"""

from __future__ import annotations

from answer_corpus import Item

Q_RETURN = "Can I return the kettle I bought from you?"
Q_STILL = "Delivery was on 4 November 2026. Can I still return the toaster?"
Q_CANCEL = "Can I cancel a purchase free of charge while it is still processing?"
Q_CANCEL_SHIPPED = "Can I cancel a purchase free of charge after it has shipped?"
Q_FEE = "Is there a restocking fee if I return the opened headphones?"
Q_SHIP = "Will a $42.10 purchase ship free?"
Q_DAYS = "How many days after delivery do I have to return the kettle?"
Q_LEFT = "Delivery was on 4 November 2026. How many days do I have left to return the rug?"
Q_BUSINESS = "How many business days does my refund take once you receive my return?"
Q_SHIPPING = "How much does standard shipping cost when a purchase doesn't ship free?"
Q_PERCENT = "What percentage restocking fee applies if I return an opened speaker because I changed my mind?"
Q_THRESHOLD = "What is the smallest purchase, in dollars, that ships free?"
Q_ADJUST = "If an item's price drops after delivery, within how many days can I get the difference refunded?"
Q_SURCHARGE = "How much is the shipping surcharge on an oversized item like a sofa?"
Q_REFUND = "I paid $58.00 for the speaker and opened it, but I changed my mind. How much will I get back if I return it?"

YES, NO = "yes", "no"
CREDIT, CARD = "store credit", "original payment method"


def _yn(question: str, rows: list[tuple[str, object]]) -> list[Item]:
    return [Item("yes_no", question, text, truth, source="audit") for text, truth in rows]


def _num(question: str, rows: list[tuple[str, float | None]]) -> list[Item]:
    return [Item("number", question, text, truth, source="audit") for text, truth in rows]


def _status(rows: list[tuple[str, str | None]]) -> list[Item]:
    return [Item("status", None, text, truth, source="audit") for text, truth in rows]


def _choice(rows: list[tuple[str, str | None]]) -> list[Item]:
    return [Item("choice", "Is a refund paid to the original payment method or as store credit?", text, truth,
                 source="audit") for text, truth in rows]


YES_NO = (
    _yn(Q_RETURN, [
        ("Certainly — kettles are returnable within our window.", YES),
        ("Kettles are covered by our standard returns policy, so go right ahead.", YES),
        ("We'd be glad to take it back.", YES),
        ("Returns on kettles are accepted.", YES),
        ("Afraid kettles fall under final sale, so no.", NO),
        ("That one's non-refundable and non-returnable, I'm sorry to say.", NO),
        ("Kettles can be returned, but only if the seal is unbroken.", None),
        ("You can send it back provided you still have the packaging.", None),
        ("I seriously doubt we'd accept it back.", NO),
        ("I'm not convinced you can return it.", NO),
        ("Returnable? I'd say so, yes.", YES),
        ("Regrettably we can't accept that item back.", NO),
        ("It's returnable unless it was bought in the clearance sale.", None),
        ("Usually yes, though some kitchen items are excluded.", None),
        ("Nope, kettles aren't something we take back.", NO),
        ("yeh you can return it np", YES),
        ("Yes you can retrun it.", YES),
        ("No, you cant return it.", NO),
        ("I apologise, but kettles are final sale.", NO),
        ("I'm sorry, we don't take back small appliances.", NO),
        ("Sorry to keep you waiting — yes, it can go back.", YES),
        ("Yes, as long as it's unused.", None),
        ("Yes, subject to it being in its original condition.", None),
        ("I'd have to check with the warehouse; I really couldn't tell you.", None),
        ("It depends on whether it was a marketplace item.", None),
        ("Returns are possible for most items, kettles included.", YES),
        ("Of course! Just start a return from your orders page.", YES),
        ("Not a chance, I'm afraid: final sale.", NO),
        ("Absolutely you can.", YES),
        ("There's no way for us to take it back, sorry.", NO),
    ]),
    _yn(Q_STILL, [
        ("Yes — you're still inside the 30-day window.", YES),
        ("You've got eleven days left, so yes.", YES),
        ("Sadly the window closed last week.", NO),
        ("I'm sorry, the return period has lapsed.", NO),
        ("No, it's past the deadline now.", NO),
        ("You're still in time, as long as you start it before Friday.", None),
        ("Yes, but only if you ship it back by the 30th.", None),
        ("I don't think you're still within the window.", NO),
        ("It's too late for a standard return, unfortunately.", NO),
        ("You are well within the return window.", YES),
    ]),
    _yn(Q_CANCEL, [
        ("Yes, cancellation is free while it's processing.", YES),
        ("You can cancel it at no charge right now.", YES),
        ("Cancelling costs nothing at this stage.", YES),
        ("Yes, as long as it hasn't shipped yet.", YES),
        ("No — cancellations carry a fee.", NO),
        ("I doubt it can be cancelled for free.", NO),
        ("You can cancel, though a small fee may apply.", None),
        ("You can cancel it free of charge, unless it's a custom order.", None),
        ("Free cancellation? Yes indeed.", YES),
        ("Cancelling it won't cost you a penny.", YES),
    ]),
    _yn(Q_CANCEL_SHIPPED, [
        ("No, once it has shipped it can't be cancelled; you'd return it instead.", NO),
        ("Unfortunately a shipped order can no longer be cancelled.", NO),
        ("After dispatch we can't cancel it, I'm afraid.", NO),
        ("It's not possible to cancel after it ships.", NO),
        ("Yes, you can still cancel it for free.", YES),
        ("Maybe, if the carrier hasn't collected it.", None),
        ("No, cancellation isn't available once shipped.", NO),
        ("I'm afraid not — you would need to return it once it arrives.", NO),
    ]),
    _yn(Q_FEE, [
        ("Yes, a 15% restocking fee applies to opened items.", YES),
        ("There is — fifteen percent is deducted.", YES),
        ("We do charge a restocking fee on opened headphones.", YES),
        ("No restocking fee at all.", NO),
        ("None whatsoever.", NO),
        ("Nope, you'll get the full amount back.", NO),
        ("There's no fee unless they're damaged.", None),
        ("There's usually a fee, but it's sometimes waived.", None),
        ("I don't believe there's a fee.", NO),
        ("Sorry, yes, there's a restocking charge.", YES),
        ("I'm afraid a restocking fee applies.", YES),
        ("The fee is waived for members only.", None),
        ("A fee of 15 percent will be taken off your refund.", YES),
        ("No, there's no charge for that.", NO),
        ("Yes there is a restoking fee.", YES),
    ]),
    _yn(Q_SHIP, [
        ("Yes, that clears the $35 threshold, so shipping's on us.", YES),
        ("It does — free standard shipping.", YES),
        ("Yep, no delivery charge on that one.", YES),
        ("No, you'll pay $4.99 shipping.", NO),
        ("Unfortunately it's just under the minimum.", NO),
        ("It ships free, except to Alaska and Hawaii.", None),
        ("I doubt it qualifies for free shipping.", NO),
        ("It should ship free, but I can't promise.", None),
        ("Sure does!", YES),
        ("It won't, I'm afraid.", NO),
    ]),
)

NUMBERS = (
    _num(Q_DAYS, [
        ("You have thirty days from delivery.", 30.0),
        ("30 days.", 30.0),
        ("The window is 30 calendar days after it's delivered.", 30.0),
        ("A full month from the delivery date.", 30.0),
        ("You've got a fortnight.", 14.0),
        ("Thirty days, or sixty over the holidays.", None),
        ("It's either 14 or 30 days, I'd need to check.", None),
        ("Normally 30 days, although some appliances have 14.", None),
        ("I don't think it's 30 days.", None),
        ("I reckon 30 days, give or take.", None),
        ("30 days (not 14, that's for electronics).", 30.0),
        ("It's 30 days after delivery, not 30 days after purchase.", 30.0),
        ("Thirty (30) days.", 30.0),
        ("30 days for most items; 14 for kettles.", 14.0),
        ("You have 45 days.", 45.0),
    ]),
    _num(Q_LEFT, [
        ("You've got 12 days left.", 12.0),
        ("Twelve days remain.", 12.0),
        ("There are 12 days remaining in your window.", 12.0),
        ("It's been 18 days since delivery, so you have 12 days left.", 12.0),
        ("About 12 days, maybe 11.", None),
        ("12 or 13 days depending on the time zone.", None),
        ("You have until 4 December, which is 12 days away.", 12.0),
        ("Roughly a week and a half.", 10.5),
    ]),
    _num(Q_BUSINESS, [
        ("Five business days.", 5.0),
        ("It takes 5 working days once we've received it.", 5.0),
        ("Refunds land within 5 business days of receipt.", 5.0),
        ("Usually 5 business days, but it can take up to 10.", None),
        ("Between three and five business days.", None),
        ("5-7 business days.", None),
        ("About 5 business days, sometimes longer with some banks.", None),
        ("10 business days for PayPal, 5 for cards.", None),
        ("Up to 5 business days.", 5.0),
        ("5 bussiness days.", 5.0),
    ]),
    _num(Q_SHIPPING, [
        ("Standard shipping is $4.99.", 4.99),
        ("It's 4.99 dollars.", 4.99),
        ("$4.99 flat.", 4.99),
        ("USD 4.99.", 4.99),
        ("Four dollars ninety-nine.", 4.99),
        ("It costs $4.99, or $9.99 for express.", 4.99),
        ("$4.99 — or $5.99 depending on the region.", None),
        ("Between $4.99 and $7.99.", None),
        ("Standard shipping runs $4.99 on orders under $35.", 4.99),
        ("Shipping's 4,99 $.", 4.99),
    ]),
    _num(Q_PERCENT, [
        ("15 percent.", 15.0),
        ("A 15% restocking fee.", 15.0),
        ("Fifteen per cent of the price.", 15.0),
        ("It's 15%, not 20%.", 15.0),
        ("15% or 20%, depending on the condition.", None),
        ("Roughly 15%.", 15.0),
        ("We keep 15 percent as a restocking fee.", 15.0),
        ("No percentage at all — it's free.", 0.0),
    ]),
    _num(Q_THRESHOLD, [
        ("$35.", 35.0),
        ("Orders of thirty-five dollars or more ship free.", 35.0),
        ("Anything from $35.00 upwards ships free.", 35.0),
        ("The minimum is 35 dollars.", 35.0),
        ("$35 for standard, $50 for express.", None),
        ("I think it's $35 but it might be $50 now.", None),
        ("Spend at least $35 and shipping is free.", 35.0),
    ]),
    _num(Q_ADJUST, [
        ("Within 14 days of delivery.", 14.0),
        ("You have fourteen days to claim a price adjustment.", 14.0),
        ("Two weeks.", 14.0),
        ("If it drops within 14 days, we'll refund the difference.", 14.0),
        ("Price adjustments are honoured for 14 days after delivery.", 14.0),
        ("7 or 14 days, I forget which.", None),
        ("I don't believe we offer 14 days.", None),
        ("14 days, though sale events may be excluded.", 14.0),
        ("It's a 14-day window.", 14.0),
        ("14 days usually, 30 for members.", None),
    ]),
    _num(Q_SURCHARGE, [
        ("There's a $29.99 surcharge.", 29.99),
        ("Oversized items carry a 29.99 dollar surcharge.", 29.99),
        ("It's twenty-nine ninety-nine.", 29.99),
        ("$29.99 on top of standard shipping ($4.99).", 29.99),
        ("The surcharge is $29.99, or $39.99 for two-person delivery.", None),
        ("Around $30.", 30.0),
        ("$29.99 per item.", 29.99),
    ]),
    _num(Q_REFUND, [
        ("You'd get $49.30 back.", 49.30),
        ("After the 15% fee, your refund comes to $49.30.", 49.30),
        ("$58.00 minus $8.70 leaves $49.30.", 49.30),
        ("You'll receive 49 dollars and 30 cents.", 49.30),
        ("Either $49.30 or the full $58.00, depending on the condition.", None),
        ("Your refund would be about $49.", 49.0),
        ("$49.30 — that's $58.00 less the 15% fee.", 49.30),
        ("The full $58.00.", 58.0),
    ]),
)

STATUSES = _status([
    ("Your parcel was handed to Royal Mail yesterday.", "shipped"),
    ("It's out for delivery today.", "in_transit"),
    ("The courier dropped it off this morning.", "delivered"),
    ("We've cancelled that order as you asked.", "cancelled"),
    ("It's still in our warehouse being packed.", "processing"),
    ("It has left the warehouse and is with the carrier.", "in_transit"),
    ("It was dispatched on Monday and arrived on Wednesday.", "delivered"),
    ("It's on the lorry heading your way.", "in_transit"),
    ("Tracking shows delivered, though the driver says it's still on the van.", None),
    ("It might have been delivered, I can't see a scan.", None),
    ("It's either in transit or delivered already.", None),
    ("It hasn't shipped yet.", "processing"),
    ("It hasn't been cancelled; it's still processing.", "processing"),
    ("I doubt it has shipped.", None),
    ("It should arrive tomorrow — it's in transit.", "in_transit"),
    ("The parcel has been delivered to your safe place.", "delivered"),
    ("FedEx has your package.", "in_transit"),
    ("Your order is pending.", "processing"),
    ("Your order was called off at your request.", "cancelled"),
    ("It's probably been delivered by now.", None),
    ("It was in transit, then it was delivered yesterday afternoon.", "delivered"),
    ("Our records say shipped; the carrier's site says delivered.", None),
    ("Its bene delivered.", "delivered"),
    ("It's been delivred.", "delivered"),
    ("The package is in the post.", "in_transit"),
])

CHOICES = _choice([
    ("It goes back to the card you paid with.", CARD),
    ("We refund it to your original payment method.", CARD),
    ("As store credit.", CREDIT),
    ("You'll receive store credit, not a card refund.", CREDIT),
    ("Refunds go to your original payment method unless it was a gift, in which case store credit.", None),
    ("Either to your card or as store credit — your choice.", None),
    ("It'll be credited to your Verishop account.", CREDIT),
    ("Back to the original card, usually within 5 days.", CARD),
    ("I don't think it goes back to your card.", None),
    ("Store credit, unless you paid with PayPal.", None),
    ("We issue an e-gift card for the amount.", CREDIT),
    ("You'll get the money back on your debit card.", CARD),
    ("Probably store credit.", None),
    ("Your refund will be issued to the original form of payment.", CARD),
    ("Store credit rather than a refund to your card.", CREDIT),
])

FIRST_BATCH: list[Item] = [i for group in (*YES_NO, *NUMBERS) for i in group] + STATUSES + CHOICES

# A second batch, written after the first batch's fixes and scored once, without tuning (the
# audit's own held-out part).
SECOND_BATCH: list[Item] = [
    *_yn(Q_RETURN, [
        ("I wish I could say yes, but kettles are final sale.", NO),
        ("I'd love to say yes, but we can't take it back.", NO),
        ("We used to accept kettles, but not any more.", NO),
        ("Yes. Actually, no — kettles are final sale.", None),
        ("Not unless it arrived faulty.", None),
        ("Only after we've inspected it.", None),
        ("Of course you can, it's within 30 days.", YES),
        ("Kettles? Yes, returnable.", YES),
        ("That's a no from us, sorry.", NO),
        ("We cannot accept it.", NO),
        ("Afraid it can't come back to us.", NO),
        ("You're welcome to return it.", YES),
        ("Sure thing, send it back whenever you like.", YES),
        ("It would be possible if it were unopened, but it isn't.", None),
        ("Yes for unopened kettles, no for opened ones.", None),
        ("Honestly I couldn't say.", None),
        ("Theoretically yes, but in practice we rarely allow it.", None),
        ("Yes, returns are accepted for a limited time.", YES),
    ]),
    *_yn(Q_FEE, [
        ("Yes — a fee of 15% applies.", YES),
        ("There isn't one.", NO),
        ("Not for headphones.", NO),
        ("No charge, as long as they're in resellable condition.", None),
        ("There may be a small fee.", None),
        ("No fee for members; others pay 15%.", None),
        ("Zero restocking fee.", NO),
        ("Yes, and it's 15 percent.", YES),
    ]),
    *_yn(Q_SHIP, [
        ("Not quite — you're $2 short.", NO),
        ("Yes, it's above the threshold.", YES),
        ("Shipping will be free on that order.", YES),
        ("No; free shipping starts at $50.", NO),
        ("It might, depending on your address.", None),
    ]),
    *_num(Q_DAYS, [
        ("Thirty calendar days.", 30.0),
        ("One month.", 30.0),
        ("Within 30 days of receipt.", 30.0),
        ("Ninety days for members and 30 for everyone else.", None),
        ("30 days, but 14 if it's been opened.", None),
        ("It used to be 14 days; now it's 30.", 30.0),
        ("Thirty or so days.", None),
    ]),
    *_num(Q_SHIPPING, [
        ("US$4.99.", 4.99),
        ("4.99 USD.", 4.99),
        ("Just under five dollars: $4.99.", 4.99),
        ("It's $4.99 per order, $1 more per extra item.", None),
        ("$4.99 to most addresses, $12.99 to islands.", None),
        ("Nine ninety-nine.", 9.99),
    ]),
    *_num(Q_ADJUST, [
        ("Fourteen.", 14.0),
        ("Within 14 calendar days of delivery.", 14.0),
        ("14 days for electronics and 7 for clothing.", None),
        ("There's no price adjustment after 14 days.", 14.0),
        ("I doubt it's more than 7 days.", None),
    ]),
    *_num(Q_SURCHARGE, [
        ("Twenty-nine dollars and ninety-nine cents.", 29.99),
        ("A flat $29.99 per oversized item.", 29.99),
        ("$29.99 (plus the usual $4.99 shipping).", 29.99),
        ("$29.99 or $49.99 depending on the size.", None),
    ]),
    *_status([
        ("It left our depot this morning.", "shipped"),
        ("The driver has it and it's out for delivery.", "in_transit"),
        ("We've packed it and it's awaiting collection by the courier.", "processing"),
        ("Delivery was attempted but nobody was home; it's back at the depot.", None),
        ("It's either been delivered or it's with a neighbour.", None),
        ("The order was voided before it shipped.", "cancelled"),
        ("According to the carrier it's delivered, but our system still says shipped.", None),
        ("It was delivered on the 3rd of November.", "delivered"),
        ("It's not out for delivery yet; it's still being packed.", "processing"),
        ("I believe it's in transit, though I can't be certain.", None),
        ("It's been dispatched.", "shipped"),
        ("DPD are delivering it today.", "in_transit"),
    ]),
    *_choice([
        ("The refund goes on your original card.", CARD),
        ("It'll be a voucher for the store.", CREDIT),
        ("Credit to your account, not money back.", CREDIT),
        ("To whichever card you paid with, or store credit if you prefer.", None),
        ("Store credit for gifts, your card otherwise.", None),
        ("I believe it's store credit but I'd need to check.", None),
    ]),
]

# Probes written after the second batch's fixes (corrections, unnamed exceptions, "in theory").
THIRD_BATCH: list[Item] = [
    *_yn(Q_RETURN, [
        ("Yes — sorry, I mean no.", NO),
        ("No. Sorry, I misread: yes.", YES),
        ("You could, in theory.", None),
        ("Yes, with a few exceptions.", None),
        ("Yes, though there are exceptions.", None),
        ("Yes (terms apply).", None),
        ("Yes, T&Cs apply.", None),
        ("Alas, kettles are a no-go.", NO),
        ("Returns? Nope.", NO),
        ("Can you? No.", NO),
        ("It's not that you can't return it; you can.", YES),
        ("No, sorry, no.", NO),
        ("Nope, sorry, kettles are final sale.", NO),
    ]),
    *_yn(Q_FEE, [("Fee: none.", NO), ("0%", NO), ("There's a fee in some cases.", None)]),
    *_num(Q_SHIPPING, [("$4.99 plus tax.", 4.99), ("It's a flat fee of $4.99 — $6.99 for Alaska.", None)]),
    *_status([("It's marked as delivered, though you say you haven't got it.", None),
              ("It's delivered, supposedly.", None),
              ("It's arrived at the depot.", "in_transit"),
              ("Cancelled? No, it shipped.", "shipped"),
              ("It's awaiting pickup at the post office.", None),
              ("It was delivered yesterday — did it arrive OK?", "delivered")]),
    *_yn(Q_RETURN, [("Sure thing — actually, hmm, no.", NO), ("Absolutely — wait, no.", NO),
                    ("Of course, sorry, no problem.", YES)]),
]

ITEMS: list[Item] = FIRST_BATCH + SECOND_BATCH + THIRD_BATCH
