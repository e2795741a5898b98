"""Project bundles (`bundle`): everything a project needs, one product per category, within a
budget. Registered in `verishop.envs` (one line); its roles are the files beside this one."""
