"""verishop as a NeMo Gym resources server (issue 36): `VerishopResourcesServer` (server.py), the
JSONL of tasks (`python -m verishop_nemo_gym.dataset`), the episodes in a verishop worker."""
