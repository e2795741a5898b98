"""Order status (`status`): "where is my order?"; the agent finds the order the customer means and
tells its status. Registered in `verishop.envs` (one line); its roles are the files beside this one."""

# Example rollouts (verishop.agents.record_examples): greedy solves d6 seeds 1-5, so its unsolved one is at d9.
EXAMPLE_PLAYS = (("oracle", 0, 1), ("greedy", 9, 1), ("oracle", 12, 1))
