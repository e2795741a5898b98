"""The report in a real browser: headless Chromium (Debian's `chromium`) opens the file with no
network, logs no console error, and shows every plot; an episode's anchor shows its page alone.
Opt-in (`make test-report`); skipped where Chromium is not installed."""

from __future__ import annotations

import pytest

from chromium import Browser, find_chromium
from support import play_run
from test_report import build_report

CHROMIUM = find_chromium()
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")]


@pytest.fixture
def browser(tmp_path):
    browser = Browser(CHROMIUM, tmp_path / "profile")
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def report(catalog_path, tmp_path):
    runs = {"greedy": play_run("greedy", ("pd", "return", "journey"), (0, 5), 2, 40, catalog_path, tmp_path / "g"),
            "oracle": play_run("oracle", ("pd", "return", "journey"), (0, 5), 2, 40, catalog_path, tmp_path / "o",
                               trials=2)}
    out = tmp_path / "report.html"
    build_report(runs, out)
    return out


PLOTS = """[...document.querySelectorAll('img.plot')].map(i => ({complete: i.complete, width: i.naturalWidth,
    shown: i.getBoundingClientRect().width, svg: i.src.startsWith('data:image/svg+xml')}))"""
SHOWN = "el => el && getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().height > 0"


def test_the_report_renders_without_console_errors_and_shows_its_plots(browser, report):
    browser.open(report.as_uri())
    plots = browser.evaluate(PLOTS)
    assert len(plots) == 1 + 3
    assert all(p["complete"] and p["width"] > 100 and p["shown"] > 100 and p["svg"] for p in plots), plots
    assert browser.evaluate(f"({SHOWN})(document.querySelector('main.overview'))")
    assert browser.evaluate("document.querySelectorAll('article.episode').length") == 6 + 12
    assert browser.errors == []


def test_an_episode_link_shows_that_episode_page_beside_its_checks(browser, report):
    browser.open(report.as_uri())
    target = browser.evaluate("document.querySelector('#episodes a').getAttribute('href')")
    browser.evaluate(f"location.hash = {target!r}")
    assert browser.evaluate(f"({SHOWN})(document.querySelector({target!r}))")
    assert not browser.evaluate(f"({SHOWN})(document.querySelector('main.overview'))")
    layout = browser.evaluate(f"""(() => {{
        const turn = [...document.querySelectorAll('{target} section.turn')].find(t => t.querySelector('.check'));
        const [events, checks] = [turn.querySelector('.events'), turn.querySelector('.checks')];
        return {{left: events.getBoundingClientRect().right, right: checks.getBoundingClientRect().left,
                 top: Math.abs(events.getBoundingClientRect().top - checks.getBoundingClientRect().top)}};
    }})()""")
    assert layout["left"] <= layout["right"] and layout["top"] < 5, "the checks sit beside their turn"
    assert browser.errors == []


BY_SOURCE = f"""[...document.querySelectorAll('table.by-source')].map(t => ({{
    shown: ({SHOWN})(t), runs: [...t.querySelectorAll('tbody tr')].map(r => r.cells[0].textContent),
    head: [...t.querySelectorAll('th')].map(h => h.textContent),
    inside: !!t.closest('section.env')}}))"""


def test_each_environment_shows_failed_requirements_by_source_for_each_run(browser, report):
    browser.open(report.as_uri())
    tables = browser.evaluate(BY_SOURCE)
    assert len(tables) == 3, "one by-source table per environment"
    for table in tables:
        assert table["shown"] and table["inside"], table
        assert sorted(table["runs"]) == ["greedy", "oracle"], table
        assert [h.split(" ")[0] for h in table["head"][2:6]] == ["stated", "revealed", "withheld", "shop"]
    assert browser.errors == []
