"""The voices' own words, hand-written: what each says around a reply, instead of a stock sentence,
and around its opening request. No entry holds a fact (an ID, an amount, a product): the facts are
the plain reply's. No accepting frame praises (no "great", "perfect", "exactly what …"): whether
a close is happy is the behaviour's choice, not the voice's.
"""

from __future__ import annotations

# --- replies --------------------------------------------------------------------------------

# The plain voice's stock sentences (whole sentences that hold no fact) and their keys.
STOCK_KEYS: dict[str, str] = {
    "Good question.": "good_question",
    "Hmm, let me think.": "think",
    "Sorry, I'm not sure how that helps.": "unhelpful",
    "What would you recommend?": "recommend",
    "What would you suggest instead?": "recommend",
    "What do you suggest?": "recommend",
    "Okay.": "okay",
    "Okay, thank you.": "thanks",
    "Never mind, bye.": "bye",
    "never mind, bye.": "bye",
    "Bye.": "bye",
    "Are you sure that's right?": "sure",
    "Anything in stock?": "in_stock",
    "Anything closer?": "closer",
    "Is there anything closer?": "closer",
    "No, that's everything.": "nothing_left",
    "No, that's everything I need.": "nothing_left",
    "Could you put it in my cart?": "cart",
    "I've run out of time for this, thanks anyway.": "out_of_time",
}
# Stock words that lead a reply, followed by its facts.
LEADS: dict[str, str] = {"As I said:": "as_said"}

_Options = tuple[str, ...]

STOCK: dict[str, dict[str, _Options]] = {
    "terse": {
        "good_question": ("",), "think": ("Hm.", ""), "unhelpful": ("Irrelevant.", "Not relevant."),
        "recommend": ("Suggestions?", "Recommend something.", "Options?"), "okay": ("Ok.", ""),
        "thanks": ("Ok, thanks.", "Thanks."), "bye": ("Bye.",), "sure": ("Sure?", "Check that."),
        "in_stock": ("In stock ones?", "Need in stock."), "closer": ("Closer?", "Something closer?"),
        "nothing_left": ("No, that's it.", "Nothing else."), "cart": ("Add it.", "Cart it."),
        "out_of_time": ("Out of time.",), "as_said": ("Said already:", "Again:"),
    },
    "chatty": {
        "good_question": ("Oh, good question!", "Ooh, glad you asked!", "Right, good point."),
        "think": ("Hmm, let me think for a second...", "Oh, one thing comes to mind."),
        "unhelpful": ("Ha, I'm not sure what that has to do with it, honestly.",
                      "Sorry, I don't quite see how that's related!"),
        "recommend": ("So what would you pick for me?", "What do you reckon I should go for?"),
        "okay": ("Okay, okay.", "Right, gotcha."),
        "thanks": ("Okay, thanks a lot.", "Alright, thank you so much."),
        "bye": ("Anyway, bye for now.", "Oh well, bye."),
        "sure": ("Are you really sure about that one? I can't seem to find it.",),
        "in_stock": ("Is there anything you actually have in stock?",),
        "closer": ("Is there anything a bit closer to it, maybe?",),
        "nothing_left": ("Nope, I think that's it from me!", "No, I think I've told you it all now."),
        "cart": ("Could you pop it in my cart for me?",),
        "out_of_time": ("Oh dear, I've really got to run now, thanks anyway.",),
        "as_said": ("Like I mentioned before:", "As I was saying:"),
    },
    "formal": {
        "good_question": ("Thank you for asking.", "That is a fair question."),
        "think": ("Allow me a moment.", "Let me consider that."),
        "unhelpful": ("I am afraid I do not see the relevance of that question.",),
        "recommend": ("What would you recommend, please?", "Which would you advise?"),
        "okay": ("Very well.", "I see."), "thanks": ("Very well, thank you.", "Thank you kindly."),
        "bye": ("Good day.", "Goodbye."), "sure": ("Could you please verify that?",),
        "in_stock": ("Would you have anything currently in stock?",),
        "closer": ("Would there be anything more similar?",),
        "nothing_left": ("No, that is all I require.", "That is everything, I believe."),
        "cart": ("Would you kindly add it to my cart?",),
        "out_of_time": ("I am afraid I no longer have time for this, thank you nonetheless.",),
        "as_said": ("As I mentioned:", "As stated earlier:"),
    },
    "non-native": {
        "good_question": ("Yes, good question.", "Ah, ok."), "think": ("Hmm, I think...", "Wait, I think about it."),
        "unhelpful": ("Sorry, I don't understand why you ask this.",),
        "recommend": ("What you recommend to me?", "Which one you suggest?"),
        "okay": ("Ok.", "Ok, yes."), "thanks": ("Ok, thank you.", "Ok, thank you very much."),
        "bye": ("Ok, bye.", "Goodbye."), "sure": ("You are sure this is correct?",),
        "in_stock": ("You have something in the stock?",),
        "closer": ("There is something more similar?",),
        "nothing_left": ("No, this is all.", "No, is everything."),
        "cart": ("Please you put it in my cart?",),
        "out_of_time": ("Sorry, I have no more time now, thank you.",),
        "as_said": ("Like I say before:", "I say already:"),
    },
    "typo-prone": {
        "good_question": ("good qustion", "ah ok"), "think": ("hmm lemme think..", "hm"),
        "unhelpful": ("not sure how thats relevent", "dont see how that helps"),
        "recommend": ("wat would u recomend?", "what do u sugest?"),
        "okay": ("ok", "k"), "thanks": ("ok thx", "ok thnks"), "bye": ("bye", "nvm bye"),
        "sure": ("r u sure thats rigth?",), "in_stock": ("anythign in stock?",),
        "closer": ("anything closr?",), "nothing_left": ("no thats it", "nope thats all"),
        "cart": ("can u put it in my cart?",), "out_of_time": ("gotta go, no time for this sry",),
        "as_said": ("like i said:", "i alredy said:"),
    },
    "impatient": {
        "good_question": ("Finally a question.", ""), "think": ("Fine.",),
        "unhelpful": ("That's got nothing to do with it.", "Why does that matter?"),
        "recommend": ("Just tell me what to get.", "So what do you suggest, quickly?"),
        "okay": ("Fine.", "Okay, okay."), "thanks": ("Fine, thanks.", "Okay, thanks."),
        "bye": ("Bye.", "Forget it, bye."), "sure": ("Are you sure? Check it.",),
        "in_stock": ("Something in stock, please.",), "closer": ("Anything closer? Come on.",),
        "nothing_left": ("No, that's it. Can we move on?", "Nothing else."),
        "cart": ("Just put it in my cart.",), "out_of_time": ("I don't have time for this.",),
        "as_said": ("I already told you:", "Again:"),
    },
    "vague-then-precise": {
        "good_question": ("Hmm, right, let me be precise.", "Ah, yes, to be exact."),
        "think": ("Let me think... okay.", "Something like... yes."),
        "unhelpful": ("Hmm, I'm not sure that's it.", "Not sure that's what I meant."),
        "recommend": ("What would you suggest, then?", "So, any ideas?"),
        "okay": ("Right.", "Okay, I think."), "thanks": ("Okay, thanks.", "Alright, thank you."),
        "bye": ("Well, bye.", "Oh well. Bye."), "sure": ("Hmm, is that right?",),
        "in_stock": ("Something that's in stock, I suppose?",), "closer": ("Something more like it, maybe?",),
        "nothing_left": ("No, I think that's all.", "No, nothing else I think."),
        "cart": ("Could you put it in the cart, I suppose?",),
        "out_of_time": ("I think I'd better stop here, thanks anyway.",),
        "as_said": ("I mean, as I said:", "Well, like I said:"),
    },
}

# Act -> (words before the reply, words after it); "" says nothing there.
_Frame = tuple[_Options, _Options]
FRAMES: dict[str, dict[str, _Frame]] = {
    "terse": {
        "answer": (("",), ("",)), "nudge": (("",), ("",)), "correct": (("No.", "", "Wrong."), ("",)),
        "accept": (("",), ("",)), "give_up": (("",), ("",)), "approve": (("",), ("",)),
        "insist": (("",), ("",)),
    },
    "chatty": {
        "answer": (("Oh!", "Ah, right.", "Sure thing!"), ("", "Hope that helps!", "Does that make sense?")),
        "nudge": (("", "Alright then."), ("", "No rush!")),
        "correct": (("Hmm, wait a second.", "Oh, hang on.", "Oh no."), ("", "Sorry to be picky!")),
        "accept": (("Alright.", "Okay then."), ("Have a nice day!", "Bye for now!")),
        "give_up": (("Oh dear.", "Well."), ("",)),
        "approve": (("Oh yes!", "Sure thing."), ("", "Thanks so much for sorting it.")),
        "insist": (("Hmm.",), ("",)),
    },
    "formal": {
        "answer": (("Certainly.", "Of course."), ("",)), "nudge": (("",), ("",)),
        "correct": (("I beg your pardon, but", "I am afraid there is an issue:"), ("",)),
        "accept": (("Very well.",), ("Good day.", "Kind regards.")),
        "give_up": (("I regret to say this.",), ("",)),
        "approve": (("Indeed.", "Yes, I confirm."), ("Thank you.",)),
        "insist": (("With respect,",), ("",)),
    },
    "non-native": {
        "answer": (("Ah ok.", "Yes."), ("",)), "nudge": (("",), ("",)),
        "correct": (("No no.", "Sorry but"), ("",)),
        "accept": (("Ok.",), ("Thank you.", "")),
        "give_up": (("Sorry.",), ("",)), "approve": (("Yes yes.", "Ok yes."), ("",)),
        "insist": (("But",), ("",)),
    },
    "typo-prone": {
        "answer": (("ah ok", "so"), ("",)), "nudge": (("",), ("",)),
        "correct": (("hmm", "wait"), ("",)), "accept": (("", "alright"), ("",)),
        "give_up": (("ugh",), ("",)), "approve": (("yep",), ("",)), "insist": (("but",), ("",)),
    },
    "impatient": {
        "answer": (("Fine.", "Look,"), ("Now hurry up, please.", "Can we get on with it?")),
        "nudge": (("",), ("I'm waiting.", "")),
        "correct": (("No!", "Come on."), ("Please pay attention.", "")),
        "accept": (("Finally.", "Okay."), ("",)),
        "give_up": (("Forget it.", "Enough."), ("",)),
        "approve": (("Yes, yes.", "Yes, finally."), ("Quickly, please.",)),
        "insist": (("Seriously?",), ("",)),
    },
    "vague-then-precise": {
        "answer": (("Hmm, I mean...", "Right, so..."), ("",)), "nudge": (("",), ("",)),
        "correct": (("Hmm, not quite.", "That's not really it."), ("",)),
        "accept": (("Okay, I think.", "Alright."), ("",)),
        "give_up": (("Hmm.",), ("",)), "approve": (("Yes, I think so.", "Right."), ("",)),
        "insist": (("Well,",), ("",)),
    },
}

# --- openings -------------------------------------------------------------------------------

# A voice's greeting (the plain one's dropped), what it says before its request, and after it.
GREETINGS: dict[str, _Options] = {
    "terse": ("",),
    "chatty": ("Hi there!", "Hello hello!", "Hey, hi!", "Oh hi!"),
    "formal": ("Good day.", "Good afternoon.", "Dear customer service,", "Hello, and thank you for your time."),
    "non-native": ("Hello,", "Hello sir,", "Hi, good day,"),
    "typo-prone": ("hi", "helo", "hey", ""),
    "impatient": ("", "Hi.", "Hello."),
    "vague-then-precise": ("Hi,", "Hello,", "Um, hi."),
}
SMALL_TALK: dict[str, _Options] = {
    "chatty": ("Hope your day is going well!", "I've been meaning to sort this out all week.",
               "A friend told me you're really helpful here.", "Sorry, I do ramble a bit.",
               "It's been one of those weeks, honestly."),
    "impatient": ("I'm in a hurry.", "Quick one.", "I don't have much time.", "Let's make this fast."),
    "vague-then-precise": ("I need some help with something, not sure where to start.",
                           "So there's this thing I need sorted out.",
                           "I'm not sure how to put this, it's about something from your shop.",
                           "Hmm, I have a sort of request."),
}
# What a vague start says before the precise request.
PRECISELY: _Options = ("Okay, to be precise:", "Let me be exact.", "Precisely:", "What I mean is this.")
SIGN_OFFS: dict[str, _Options] = {
    "terse": ("", "Thanks."),
    "chatty": ("Thanks so much in advance!", "You're a star, thanks!", "Thank you, really appreciate it!", ""),
    "formal": ("Thank you in advance for your assistance.", "Kind regards.", "I look forward to your reply."),
    "non-native": ("Thank you very much.", "Please help, thank you.", "Thanks you."),
    "typo-prone": ("thx", "thnaks", "ty", ""),
    "impatient": ("Quickly, please.", "I'm waiting.", "Make it fast."),
    "vague-then-precise": ("", "I hope that makes sense.", "I hope that's clear."),
}

# Frame words each voice says its own way in an opening (regular expression -> replacement),
# applied only to these fixed phrases of the plain openings, never to a fact.
PHRASES: dict[str, tuple[tuple[str, str], ...]] = {
    "terse": ((r"\bI'm shopping for\b", "Need"), (r"\bI'd like to\b", "Want to"), (r"\bI'd like\b", "Want"),
              (r"^Please help me\b", "Help me"), (r"\bCan you recommend\b", "Recommend"),
              (r"\bCould you find me\b", "Find me"), (r"\bPlease show me your top\b", "Show me top"),
              (r"\bI'm wondering where my order\b", "Where's my order"), (r"\bI wanted to buy\b", "Wanted"),
              (r"\bI have a question about\b", "Question about"), (r"\bPlease use my\b", "Use my"),
              (r"\bHow much would the difference be\?", "Difference?"), (r"\bCould you pick\b", "Pick")),
    "formal": ((r"\bI'm\b", "I am"), (r"\bI'd\b", "I would"), (r"\bit's\b", "it is"), (r"\bdoesn't\b", "does not"),
               (r"\bisn't\b", "is not"), (r"\bCan you\b", "Could you kindly"), (r"\bWhat's\b", "What is"),
               (r"\bwhat's\b", "what is"), (r"\bHey\b", "Hello")),
    "non-native": ((r"\bI'm shopping for\b", "I am search for"), (r"\bI'm\b", "I am"), (r"\bI'd like to\b", "I want"),
                   (r"\bI'd like\b", "I want"), (r"\bit's\b", "it is"), (r"\bdoesn't\b", "not"),
                   (r"\bCould you\b", "You can"), (r"\bCan you\b", "You can"), (r"\bisn't\b", "is not"),
                   (r"\bWhat would you suggest\?", "What you suggest?"), (r"\bwhat's happening with\b", "what happen with")),
    "typo-prone": ((r"\bplease\b", "pls"), (r"\bPlease\b", "pls"), (r"\byou\b", "u"), (r"\bYou\b", "u"),
                   (r"\byour\b", "ur"), (r"\bI'm\b", "im"), (r"\bI'd\b", "id"), (r"\bit's\b", "its"),
                   (r"\bwould\b", "wuold"), (r"\bbecause\b", "becuase"), (r"\bthe\b", "teh")),
    "impatient": ((r"\bCan you recommend (.*?)\?", r"Just give me \1."), (r"\bPlease help me\b", "I need to"),
                  (r"\bI'm wondering where\b", "Where on earth is"), (r"\bCould you\b", "Can you just")),
    "chatty": ((r"\bI'm shopping for\b", "So I'm on the hunt for"), (r"\bI'd like to\b", "I'd love to"),
               (r"\bCould you\b", "Could you maybe"), (r"\bPlease help me\b", "Could you help me")),
    "vague-then-precise": (),
}
