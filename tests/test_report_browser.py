"""The generated report in a real browser: headless Chromium (Debian's `chromium`, installed by
the README's test command) driven by Playwright for Python, pointed at that executable (Playwright
does not download browsers here). The page is loaded from disk: no console errors, every section
present, every figure drawn with a non-zero size, Table 6's RailX7Mesh cost in its table, every
link working. A screenshot is kept in build/test-artifacts/ (ignored by git).

Without chromium or Playwright the test is skipped with the reason, except under CI, where it
must run and fails instead."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from railx.report import build_report
from railx.report.catalogue import catalogue

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = REPO / "build" / "test-artifacts"

# A small user sweep beside the reproductions: two numeric axes (heatmaps) and one other (one
# heatmap per algorithm), analytic, a fraction of a second.
USER_SPEC = """
[sweep]
name = "user-allreduce"
analysis = "collective"
base = "{base}"

[options]
op = "all-reduce"
fidelity = "analytic"

[[axis]]
grid = {{ "system.R" = [4, 8, 16], "options.size" = [1024, 1048576, 1073741824], "options.algo" = ["bidir-ring", "hierarchical"] }}
"""


def _browser_or_skip() -> Any:
    missing = []
    if not Path(CHROMIUM).is_file():
        missing.append(f"{CHROMIUM} (Debian's chromium package)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing.append("the playwright Python package")
        sync_playwright = None
    if missing:
        reason = "browser test needs " + " and ".join(missing) + "; the README's test command installs both"
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI must run this test)")
        pytest.skip(reason)
    return sync_playwright


@pytest.fixture(scope="module")
def playwright_api() -> Any:
    """Playwright's sync API, or the skip (failure under CI) before any report is built."""
    return _browser_or_skip()


@pytest.fixture(scope="module")
def report(playwright_api: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Any]]:
    from distributed import Client, LocalCluster

    root = tmp_path_factory.mktemp("report")
    spec = root / "user.toml"
    spec.write_text(USER_SPEC.format(base=REPO / "examples" / "sweeps" / "systems" / "fig15-torus.toml"))
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            summary = build_report(root / "out", specs=[spec], client=client)
    yield root / "out", summary


def test_the_report_in_chromium(playwright_api: Any, report: tuple[Path, Any]) -> None:
    sync_playwright = playwright_api
    out, summary = report
    assert summary.missing == [r.id for r in catalogue() if not r.quick]
    assert summary.sweeps == ["user-allreduce"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        problems: list[str] = []
        page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
        page.goto((out / "index.html").as_uri())
        page.wait_for_load_state("load")

        # Every section, including each quick reproduction, the user sweep and the network.
        ids = page.eval_on_selector_all("section", "els => els.map(e => e.id)")
        assert ids == summary.sections
        for repro in catalogue():
            assert (f"repro-{repro.id}" in ids) == repro.quick
        assert {"reproductions", "repro-missing", "sweeps", "sweep-user-allreduce", "network", "utilisation"} <= set(
            ids
        )
        every_id = page.eval_on_selector_all("[id]", "els => els.map(e => e.id)")
        assert len(every_id) == len(set(every_id))  # inline SVGs included: no id twice in the page

        # Every figure drawn, with a size; inline SVG text is text (searchable).
        boxes = page.eval_on_selector_all(
            "figure.chart svg",
            "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })",
        )
        assert len(boxes) == summary.figures >= 8
        assert all(w > 100 and h > 100 for w, h in boxes)
        assert page.locator("figure#fig16-iteration svg text", has_text="S = 128K").count() >= 1
        # Rail-only Figs. 9-10: the paper's series (one line per HB bandwidth; per K) as text in the SVG.
        assert page.locator("figure#railonly-fig9 svg text", has_text="HB 9.6 Tb/s").count() >= 1
        assert page.locator("figure#railonly-fig10 svg text", has_text="K = 256").count() >= 1

        # Tables: Table 6's RailX7Mesh, Table II's six rows all matching.
        row = page.locator("#table6-verdict tr", has_text="railx7mesh")
        assert row.count() == 1 and "1,314.4" in row.inner_text()
        assert page.locator("#table2-verdict tbody tr").count() == 6
        assert page.locator("#table2-verdict tbody tr", has_text="match").count() == 6
        # Rail-only Fig. 9: four printed cuts and three trends; Fig. 10's K = 8 at batch 4,096 on the paper's 85%.
        assert page.locator("#railonly-fig9-verdict tbody tr").count() == 7
        assert "agrees" in page.locator("#railonly-fig10-verdict tr", has_text="K = 8, batch 4,096").inner_text()

        # Links: the contents lead to their sections; every file link exists beside the page.
        for href in page.eval_on_selector_all("nav a", "els => els.map(e => e.getAttribute('href'))"):
            page.click(f"nav a[href='{href}']")
            assert page.evaluate("location.hash") == href
            top = page.evaluate(f"document.getElementById('{href[1:]}').getBoundingClientRect().top")
            assert -2 <= top <= 900
        anchors = page.eval_on_selector_all("a[href^='#']", "els => els.map(e => e.getAttribute('href'))")
        assert all(page.evaluate(f"document.getElementById('{a[1:]}') !== null") for a in anchors)
        files = page.eval_on_selector_all("a:not([href^='#'])", "els => els.map(e => e.getAttribute('href'))")
        assert files and all((out / f).is_file() for f in files)

        page.goto((out / "index.html").as_uri())
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=False)
        browser.close()
    assert problems == []
    shutil.copy(out / "assets" / "table6-verdict.csv", ARTIFACTS / "table6-verdict.csv")
