"""The identity minefield (issue 33): the order and account tools are locked until the agent
identified the customer with `find_customer` (by email, or by name and zip code); identifying as
anyone else is a hard fail, an order call before identifying fails the task. Roles by file, as
every minefield's (`verishop.minefields`)."""
