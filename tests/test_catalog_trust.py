"""The catalog a server verified is the one its episodes and the verifier use: a stamp rewritten
for an edited file vouches for nothing when a hash is pinned, and a catalog edited or swapped
while the server runs is refused for new episodes and by the verifier for the episodes it saw."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.errors import ShopError
from verishop.scenarios.catalog.build import build_catalog
from verishop.scenarios.catalog.integrity import verify_catalog, write_stamp
from verishop.verifier.runner import Settings, Verifier

EXIT_DEADLINE_S = 60


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return build_catalog(tmp_path_factory.mktemp("trust") / "catalog.db", size=900, seed=4)


def copy_of(built, tmp_path: Path) -> Path:
    target = tmp_path / "catalog.db"
    shutil.copyfile(built.path, target)
    os.utime(target, ns=(1, 1))  # an old time: an edit surely changes it, however coarse the clock
    verify_catalog(target)  # hashed and stamped
    return target


def edit_price(path: Path, rowid: int = 17) -> None:
    with sqlite3.connect(path) as db:
        db.execute("UPDATE products SET price_cents = 1 WHERE rowid = ?", (rowid,))
    db.close()


def test_a_forged_stamp_does_not_let_a_pinned_server_serve_an_edited_catalog(built, tmp_path: Path) -> None:
    catalog = copy_of(built, tmp_path)
    edit_price(catalog)
    write_stamp(catalog, built.content_hash)  # the stamp rewritten with the edited file's size, inode, mtime
    done = subprocess.run([sys.executable, "-m", "verishop", "serve", "--catalog", str(catalog), "--catalog-hash",
                           built.content_hash, "--runs-dir", str(tmp_path / "runs")], capture_output=True, text=True,
                          timeout=EXIT_DEADLINE_S, env={**os.environ, "VERISHOP_HOME": str(tmp_path / "home")},
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert "changed after its build" in done.stderr and "Traceback" not in done.stderr
    assert not any((tmp_path / "runs").glob("ep_*"))


@pytest.mark.parametrize("change", ["edited", "swapped"])
async def test_a_catalog_changed_while_serving_is_refused_by_the_server_and_the_verifier(
        built, tmp_path: Path, change: str) -> None:
    catalog = copy_of(built, tmp_path)
    hub = EpisodeHub(catalog, tmp_path / "runs")
    try:
        before = await hub.open(hub.generate("pd", 1, 1))
        untouched = await hub.open(hub.generate("pd", 1, 2))
        await hub.close(untouched.episode_id, "closed_by_client")
        with Verifier(Settings()) as verifier:
            assert verifier.score(untouched.directory).verdict == "scored"
        if change == "edited":
            edit_price(catalog)
        else:  # another file of the same name, as `cp other.db catalog.db` or a rebuild leaves it
            other = tmp_path / "other.db"
            shutil.copyfile(built.path, other)
            edit_price(other)
            os.replace(other, catalog)
        with pytest.raises(ShopError, match="changed while this server"):
            await hub.open(hub.generate("pd", 1, 3))
        await hub.close(before.episode_id, "closed_by_client")
        with Verifier(Settings()) as verifier:
            for episode in (before, untouched):
                reward = verifier.score(episode.directory)
                assert reward.verdict == "incomplete" and reward.reason == "catalog_changed", reward
                assert "changed" in reward.detail
    finally:
        await hub.aclose()
