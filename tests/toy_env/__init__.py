"""A toy environment (`toy`): "when did I place my order?", one order, one date. It exists to prove
docs/adding-an-environment.md: tests/test_adding_an_environment.py copies this folder to a temporary
directory, adds one registry line to a copy of the registry, and runs the contract every registered
environment passes (tests/env_contract.py). It reuses the status goal model, so it needs no edit
of `verishop.scenarios.models`; a real environment adds its own goal model to the `Goal` union."""
