"""The shop in the trainer's process (issue 36): `LocalShop` opens episodes with no server, no port
and no files; `verishop.Env` is one episode at a time behind a Gymnasium-like face."""

from verishop.local.shop import LocalEpisode, LocalShop, LocalShopError

__all__ = ["LocalEpisode", "LocalShop", "LocalShopError"]
