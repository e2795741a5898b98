"""Typo noise for the customer's words: the agent must cope with "usb-c chargr"."""

from __future__ import annotations

import random


def add_typos(rng: random.Random, text: str, p_noise: float) -> str:
    """Perturb each word of four or more letters with probability `p_noise`."""
    if p_noise <= 0:
        return text
    words = text.split(" ")
    for i, word in enumerate(words):
        if len(word) >= 4 and word.isalpha() and rng.random() < p_noise:
            j = rng.randrange(1, len(word) - 1)
            match rng.randrange(3):
                case 0:  # drop a letter
                    word = word[:j] + word[j + 1:]
                case 1:  # swap two neighbours
                    word = word[:j] + word[j + 1] + word[j] + word[j + 2:]
                case _:  # double a letter
                    word = word[:j] + word[j] + word[j:]
            words[i] = word
    return " ".join(words)
