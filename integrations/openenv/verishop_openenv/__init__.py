"""verishop as an OpenEnv environment (issue 36): `VerishopEnvironment` (the server side),
`VerishopEnv` (the client), `ShopAction` / `ShopObservation` / `ShopState`."""

from verishop_openenv.models import ShopAction, ShopObservation, ShopState

__all__ = ["ShopAction", "ShopObservation", "ShopState"]
