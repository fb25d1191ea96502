"""Benchmark: `railx report` over every shipped reproduction (targets: the page built from a store
in < 2 min, not counting the analyses; opened in a browser in < 2 s).

The store is filled first (every catalogue spec, Fig. 17(b) included, but for the --skip
reproductions, by default those whose simulations take hours (RailX Fig. 14's flit runs) or many
minutes (Flex-SiPAC Figs. 7 and 8 at 512 CUs); with --store FILE a second run reuses it), then the report is built from it and timed, then opened in headless Chromium
(Debian's, driven by Playwright) from disk, timed from navigation to the load event, and the
page's size is printed. Not a test: `python benchmarks/report.py [--store FILE] [--out DIR]
[--workers N] [--repeat N]`."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from railx.progress import shows_progress
from railx.report import build_report, catalogue
from railx.report.build import run_specs
from railx.report.catalogue import spec_path

CHROMIUM = "/usr/bin/chromium"


def open_times_s(page_path: Path, repeat: int) -> list[float]:
    """Seconds from navigation start to the load event, each in a fresh page."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for _ in range(repeat):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(page_path.as_uri(), wait_until="load")
            times.append(page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd") / 1e3)
            page.close()
        browser.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", type=Path, help="result store to fill and keep (default: a temporary one)")
    parser.add_argument("--out", type=Path, help="report directory to keep (default: a temporary one)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes for the specs")
    parser.add_argument("--repeat", type=int, default=3, help="builds and page loads to time")
    parser.add_argument("--skip", nargs="*", default=["fig14", "flexsipac-fig7", "flexsipac-fig8"],
                        help="catalogue ids whose specs are not run (give none to run every spec)")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        store = args.store or Path(scratch) / "report.duckdb"
        start = time.perf_counter()
        specs = [spec_path(s) for r in catalogue() if r.id not in args.skip for s in r.specs]
        run_specs(specs, store, workers=args.workers, quiet=not shows_progress(False))
        analyses_s = time.perf_counter() - start
        builds = []
        for i in range(args.repeat):
            out = args.out or Path(scratch) / f"report-{i}"
            start = time.perf_counter()
            summary = build_report(out, store)
            builds.append(time.perf_counter() - start)
        page = Path(summary.page)
        page_kib = page.stat().st_size / 1024
        size_kib = sum(f.stat().st_size for f in page.parent.rglob("*") if f.is_file()) / 1024
        opens = open_times_s(page, args.repeat)
    print(f"analyses (filling the store, not counted): {analyses_s:.1f} s")
    print(
        f"report: {len(summary.reproductions)} reproductions ({', '.join(summary.reproductions)}), "
        f"{summary.figures} figures, {summary.tables} tables, {len(summary.sweeps)} other sweeps; "
        f"index.html {page_kib:.0f} KiB, directory {size_kib:.0f} KiB"
    )
    print(f"build from the store: median {statistics.median(builds):.1f} s of {args.repeat} (target < 120 s): "
          + ", ".join(f"{b:.1f}" for b in builds))  # fmt: skip
    print(f"page open (navigation to load event, Chromium): median {statistics.median(opens):.3f} s of "
          f"{args.repeat} (target < 2 s): " + ", ".join(f"{t:.3f}" for t in opens))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
