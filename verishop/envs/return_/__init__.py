"""Returns (`return`): the customer wants to return one delivered order line it describes, never
names, and sometimes a replacement. Registered in `verishop.envs` (one line); its roles are the
files beside this one. The folder is `return_` because `return` is a Python keyword (PEP 8)."""
