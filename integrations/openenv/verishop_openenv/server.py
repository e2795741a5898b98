"""OpenEnv's server for verishop: `python -m verishop_openenv.server --port 8000`
(or `uvicorn verishop_openenv.server:app`), with `VERISHOP_PYTHON` set (see shop_process)."""

from __future__ import annotations

import argparse

from openenv.core.env_server.http_server import create_app

from verishop_openenv.environment import VerishopEnvironment
from verishop_openenv.models import ShopAction, ShopObservation, ShopState

app = create_app(VerishopEnvironment, ShopAction, ShopObservation, env_name="verishop",
                 max_concurrent_envs=16, state_cls=ShopState)


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m verishop_openenv.server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
