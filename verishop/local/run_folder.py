"""Writing an in-process episode's run folder: the files a server would have left, and the reward.

The folder is made under a hidden name and renamed into place once whole, so a verifier or a
sidecar watching the runs folder never sees half an episode. A sealed episode is listed beside its
key first, as a server lists it (`scenarios/seal.record_sealed`): stripping its seals later cannot
pass it off as unsealed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from verishop.scenarios.seal import SealKey, record_sealed
from verishop.verifier.models import Reward
from verishop.verifier.runner import write_reward


def write_folder(runs_dir: Path, episode_id: str, files: dict[str, bytes], reward: Reward | None,
                 seal_key: SealKey | None) -> Path:
    """Write `files` (name -> bytes) and `reward` into `runs_dir/episode_id`; returns the folder."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    target = runs_dir / episode_id
    if os.path.lexists(target):
        raise FileExistsError(f"{target} already exists: an episode's folder is written once")
    making = runs_dir / f".{episode_id}.writing"
    if seal_key is not None:
        record_sealed(seal_key, episode_id)
    making.mkdir()
    try:
        for name, data in files.items():
            with open(making / name, "xb") as file:
                file.write(data)
        if reward is not None:
            write_reward(making, reward)
        os.rename(making, target)
    except BaseException:
        shutil.rmtree(making, ignore_errors=True)
        raise
    return target
