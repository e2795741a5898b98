"""Cart building (`cart`): the customer wants specific products, variants and quantities in its
cart. Registered in `verishop.envs` (one line); its roles are the files beside this one."""
