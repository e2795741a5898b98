"""Product discovery (`pd`): the customer wants products meeting some constraints, ranked by what
matters most to it. Registered in `verishop.envs` (one line); its roles are the files beside this one."""
