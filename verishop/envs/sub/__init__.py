"""Substitution (`sub`): the product the customer wanted is sold out; it wants similar, in-stock
alternatives. Registered in `verishop.envs` (one line); its roles are the files beside this one."""
