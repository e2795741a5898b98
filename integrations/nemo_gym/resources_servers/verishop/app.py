"""NeMo Gym's entrypoint for verishop's resources server (`ng_run` starts `python app.py` here with
this server's config). The server itself is `verishop_nemo_gym.server.VerishopResourcesServer`."""

from verishop_nemo_gym.server import VerishopResourcesServer

if __name__ == "__main__":
    VerishopResourcesServer.run_webserver()
