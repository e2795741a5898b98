"""The return window has one name (issue 29, point 7): `return_window_days` in the code, the
scenario's `StorePolicy` and the policy file (`returns.return_window_days`,
`returns.category_return_window_days`). A policy file written with the old keys (`window_days`,
`category_window_days`) still imports, into the same catalog, with a warning naming the new key;
every refusal names the key the file wrote."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verishop.scenarios.catalog.feeds import PolicyFileError
from verishop.scenarios.catalog.feeds.run import run_import

ROOT = Path(__file__).parent.parent
SHOP = ROOT / "examples" / "shop"
FEED = SHOP / "merchant.tsv"
NEW = "returns:\n  return_window_days: 30\n  category_return_window_days: {Fountain Pens: 14}\n"
OLD = "returns:\n  window_days: 30\n  category_window_days: {Fountain Pens: 14}\n"
SHIPPING = "shipping: {standard_cents: 650}\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def refusal(tmp_path: Path, text: str) -> str:
    out = tmp_path / "shop.db"
    with pytest.raises(PolicyFileError) as caught:
        run_import([FEED], out, policy=write(tmp_path / "policy.yaml", text))
    assert not out.exists()
    return str(caught.value)


def test_the_sample_policy_file_uses_the_new_keys():
    text = (SHOP / "policy.yaml").read_text()
    assert re.search(r"^\s+return_window_days:", text, re.M)
    assert re.search(r"^\s+category_return_window_days:", text, re.M)
    assert not re.search(r"^\s+(category_)?window_days:", text, re.M)


def test_the_sample_shop_imports_to_the_content_hash_its_guide_prints(tmp_path: Path):
    """The catalog stores the policy in its first form whatever the file's key names, so a shop's
    hash did not change with the rename (the guide's hash is the one from before it)."""
    printed = re.search(r"^content hash ([0-9a-f]{64})$", (ROOT / "docs" / "bring-your-own-shop.md").read_text(), re.M)
    assert printed is not None
    report = run_import([FEED], tmp_path / "shop.db", policy=SHOP / "policy.yaml")
    assert report.content_hash == printed.group(1)


def test_old_and_new_keys_give_the_same_catalog_and_only_the_old_ones_a_deprecation_warning(tmp_path: Path):
    new = run_import([FEED], tmp_path / "new.db", policy=write(tmp_path / "new.yaml", NEW + SHIPPING))
    old = run_import([FEED], tmp_path / "old.db", policy=write(tmp_path / "old.yaml", OLD + SHIPPING))
    assert new.content_hash == old.content_hash
    assert not [w for w in new.warnings if "deprecated" in w]
    deprecated = [w for w in old.warnings if "deprecated" in w]
    assert len(deprecated) == 2, old.warnings
    assert any("returns.window_days" in w and "returns.return_window_days" in w for w in deprecated)
    assert any("returns.category_window_days" in w and "returns.category_return_window_days" in w
               for w in deprecated)


def test_the_new_keys_set_the_windows_the_episodes_apply(tmp_path: Path):
    from verishop.scenarios.catalog.reader import CatalogReader
    from verishop.scenarios.envs import generate
    from verishop.scenarios.policy import return_window_days

    run_import([FEED], tmp_path / "shop.db", policy=write(
        tmp_path / "p.yaml", NEW.replace(": 30", ": 41").replace(": 14", ": 9") + SHIPPING))
    with CatalogReader(tmp_path / "shop.db") as catalog:
        policy = generate("return", 0, 1, catalog).policy
    assert policy.return_window_days == 41
    assert return_window_days(policy, "shop_fountain_pens") == 9
    assert return_window_days(policy, "shop_teapots") == 41


@pytest.mark.parametrize(("old", "new"), [("window_days", "return_window_days"),
                                          ("category_window_days", "category_return_window_days")])
def test_a_file_giving_a_rule_under_both_names_is_refused_naming_both(tmp_path: Path, old: str, new: str):
    value = "30" if old == "window_days" else "{Teapots: 45}"
    message = refusal(tmp_path, NEW + f"  {old}: {value}\n" + SHIPPING)
    assert f"returns.{old}" in message and f"returns.{new}" in message and "unknown key" not in message


@pytest.mark.parametrize(("text", "message"), [
    ("returns: {return_window_days: thirty}\n", "returns.return_window_days: Input should be a valid integer"),
    ("returns: {window_days: thirty}\n", "returns.window_days: Input should be a valid integer"),
    ("returns: {restocking_fee_percent: 5}\n", "returns.return_window_days: Field required"),
    ("returns: {return_window_days: 30, category_return_window_days: {Teapots: 400}}\n",
     "returns.category_return_window_days.Teapots: Input should be less than or equal to 365"),
    ("returns: {window_days: 30, category_window_days: {Teapots: 400}}\n",
     "returns.category_window_days.Teapots: Input should be less than or equal to 365"),
    ("returns: {return_window_days: 30, category_return_window_days: {Hats: 4}}\n",
     "returns.category_return_window_days.Hats: unknown category 'Hats'"),
    ("returns: {window_days: 30, category_window_days: {Hats: 4}}\n",
     "returns.category_window_days.Hats: unknown category 'Hats'"),
])
def test_a_refusal_names_the_key_the_file_wrote(tmp_path: Path, text: str, message: str):
    assert message in refusal(tmp_path, text + SHIPPING)


def test_the_return_window_has_one_name_in_the_code():
    """No function, variable or key spells the rule another way, but for the two places that must
    read the old keys: the policy file's deprecated names and a catalog's stored policy row."""
    allowed = {ROOT / "scenarios" / "catalog" / "feeds" / "shop_policy.py", ROOT / "scenarios" / "shop_policy.py"}
    other = re.compile(r"\b(base_return_window_days|window_days|category_window_days)\b")
    found = []
    for folder in ("scenarios", "mcp_server", "verifier", "verishop"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path in allowed or "/tests/" in str(path):
                continue
            found += [f"{path.relative_to(ROOT)}:{n}" for n, line in enumerate(path.read_text().splitlines(), 1)
                      if other.search(line)]
    assert found == []
