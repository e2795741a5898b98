"""Store policy questions (`policy`): one question, one answer computed from the shop's policy.
Registered in `verishop.envs` (one line); its roles are the files beside this one."""
