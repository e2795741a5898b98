"""A catalog is the catalog it claims to be: its products hashed again on first open of each copy,
and a server refuses a damaged file or one other than the catalog it was told to expect."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from verishop.scenarios.catalog.build import build_catalog
from verishop.scenarios.catalog.integrity import CatalogMismatch, stamp_path, verify_catalog
from verishop.scenarios.catalog.reader import CatalogError

EXIT_DEADLINE_S = 60


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("integrity") / "catalog.db"
    return build_catalog(path, size=900, seed=4)


def copy_of(built, tmp_path, name="copy.db"):
    target = tmp_path / name
    shutil.copyfile(built.path, target)
    return target


def test_a_fresh_build_is_stamped_and_opens_without_hashing(built):
    assert stamp_path(built.path).is_file()
    verified = verify_catalog(built.path, built.content_hash)
    assert (verified.content_hash, verified.size, verified.seed, verified.hashed) == (built.content_hash, 900, 4,
                                                                                       False)


def test_a_copy_is_hashed_once_then_trusted_until_it_changes(built, tmp_path):
    copy = copy_of(built, tmp_path)
    assert verify_catalog(copy).hashed is True
    assert verify_catalog(copy).hashed is False
    assert verify_catalog(copy, trust_stamp=False).hashed is True
    os.utime(copy, ns=(1, 1))  # touched: the stamp no longer describes this file
    assert verify_catalog(copy).hashed is True


def test_a_product_changed_in_place_is_caught(built, tmp_path):
    copy = copy_of(built, tmp_path)
    os.utime(copy, ns=(1, 1))  # an old time: the edit below surely changes it, however coarse the clock
    verify_catalog(copy)  # stamped
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE products SET price_cents = price_cents + 1 WHERE rowid = 17")
    with pytest.raises(CatalogMismatch, match="damaged or was changed after its build"):
        verify_catalog(copy)
    assert verify_catalog(built.path).content_hash == built.content_hash  # the original is untouched


def test_another_catalog_than_the_expected_one_is_refused_by_name(built, tmp_path):
    other = build_catalog(tmp_path / "other.db", size=900, seed=5)
    with pytest.raises(CatalogMismatch, match=r"\(seed=5, size=900.*was expected"):
        verify_catalog(other.path, built.content_hash)


def test_a_truncated_copy_is_an_error_not_a_catalog(built, tmp_path):
    cut = tmp_path / "cut.db"
    cut.write_bytes(built.path.read_bytes()[: built.path.stat().st_size // 2])
    with pytest.raises(CatalogError):
        verify_catalog(cut)


def run_cli(args: list[str], home) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verishop", *args], capture_output=True, text=True,
                          timeout=EXIT_DEADLINE_S, env={**os.environ, "VERISHOP_HOME": str(home)},
                          stdin=subprocess.DEVNULL)


def test_serve_refuses_a_wrong_or_damaged_catalog_before_anything_is_written(built, tmp_path):
    runs = tmp_path / "runs"
    wrong = run_cli(["serve", "--catalog", str(built.path), "--catalog-hash", "0" * 64, "--runs-dir", str(runs)],
                    tmp_path)
    assert wrong.returncode == 2
    assert "was expected" in wrong.stderr and "Traceback" not in wrong.stderr
    damaged = copy_of(built, tmp_path, "damaged.db")
    with sqlite3.connect(damaged) as db:
        db.execute("UPDATE products SET title = 'x' WHERE rowid = 3")
    hurt = run_cli(["serve", "--catalog", str(damaged), "--runs-dir", str(runs)], tmp_path)
    assert hurt.returncode == 2 and "damaged or was changed" in hurt.stderr
    assert not any(runs.glob("ep_*")), "no episode may be opened on a refused catalog"


def test_catalog_verify_command_reports_the_hash_and_fails_on_mismatch(built, tmp_path):
    ok = run_cli(["catalog", "verify", str(built.path), "--expect", built.content_hash], tmp_path)
    assert ok.returncode == 0 and built.content_hash in ok.stderr
    bad = run_cli(["catalog", "verify", str(built.path), "--expect", "f" * 64], tmp_path)
    assert bad.returncode == 2 and "was expected" in bad.stderr
