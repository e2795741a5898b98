"""Checkout (`checkout`): the customer wants these items delivered to an address by a date, under a
budget, at the lowest total their vouchers and the shipping options allow, paid as they ask (a gift
card first, a card the rest). Solved when exactly that order is placed, with an optimal voucher set
and shipping option, after the customer agreed to the total told to them, and nothing else changed.
Registered in `verishop.envs` (one line); its roles are the files beside this one. The shop's
tools: `list_shipping_options`, `list_vouchers`, `apply_voucher`, `remove_voucher`, `checkout`
(docs/tools.md)."""

# Example rollouts (verishop.agents.record_examples): (agent, difficulty, seed).
EXAMPLE_PLAYS = (("oracle", 0, 1), ("greedy", 3, 2), ("oracle", 5, 5))
