"""Order status (`status`): "where is my order?"; the agent finds the order the customer means and
tells its status. Registered in `verishop.envs` (one line); its roles are the files beside this one."""
