"""Page assembly: sections (each with an anchor, a table of contents entry, figures and tables)
into one self-contained index.html. The style sheet is a file of the assets directory, figures
are inline SVG, and nothing is fetched from the network.

The assets directory is the report's own: a build into the folder of an earlier one removes the
earlier build's figures and tables (``assets/*.png``, ``assets/*.csv``) that it did not write
again, so the folder holds one build's files, never a mix of two."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from railx.atomic import checked_path, make_dir, remove_stale, write_text
from railx.report.plots import Chart
from railx.report.tables import Table

__all__ = ["ASSETS", "Section", "write_page"]

ASSETS = "assets"
#: The names of the files a build writes into the assets directory (besides the style sheet).
ASSET_GLOBS = ("*.png", "*.csv")
_CSS = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 74rem; padding: 1rem 2rem; color: #222; }
nav { background: #f4f4f4; padding: .5rem 1rem; border-radius: 6px; }
nav ol { margin: .3rem 0; }
section { border-top: 1px solid #ddd; margin-top: 2rem; padding-top: .5rem; }
.claim { background: #eef4fb; border-left: 4px solid #3a78c2; padding: .5rem 1rem; }
figure { margin: 1rem 0; }
figure.chart svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .9rem; color: #444; margin: .3rem 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: .85rem; }
th, td { border: 1px solid #ccc; padding: .2rem .45rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
.note, .meta { font-size: .85rem; color: #555; }
.explanation { font-size: .9rem; }
"""


@dataclass
class Section:
    """One part of the page: an anchor id, a heading, HTML before its figures (a claim, a note),
    its figures and tables (the first `tables_first` tables before the figures, the others
    after), HTML after them (an explanation), and nested sections."""

    id: str
    title: str
    intro_html: str = ""
    charts: list[Chart] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    outro_html: str = ""
    children: list[Section] = field(default_factory=list)
    #: How many of the tables come before the figures (a reproduction's verdict table leads).
    tables_first: int = 0

    def walk(self) -> list[Section]:
        return [self, *(s for child in self.children for s in child.walk())]


def _toc(sections: list[Section]) -> str:
    items = []
    for s in sections:
        sub = _toc(s.children) if s.children else ""
        items.append(f"<li><a href='#{html.escape(s.id)}'>{html.escape(s.title)}</a>{sub}</li>")
    return f"<ol>{''.join(items)}</ol>"


def _section_html(section: Section, assets: Path, level: int, written: list[Path]) -> str:
    """The section's HTML; the files it writes into `assets` are added to `written`."""
    parts = [f"<section id='{html.escape(section.id)}'><h{level}>{html.escape(section.title)}</h{level}>"]
    parts.append(section.intro_html)
    for table in section.tables[: section.tables_first]:
        written.append(table.write_csv(assets))
        parts.append(table.to_html(f"{ASSETS}/{written[-1].name}"))
    for chart in section.charts:
        _, png = chart.write(assets)
        written.append(png)
        parts.append(chart.to_html(f"{ASSETS}/{png.name}"))
    for table in section.tables[section.tables_first :]:
        written.append(table.write_csv(assets))
        parts.append(table.to_html(f"{ASSETS}/{written[-1].name}"))
    parts.append(section.outro_html)
    parts.extend(_section_html(child, assets, min(level + 1, 3), written) for child in section.children)
    parts.append("</section>")
    return "".join(parts)


def write_page(out: str | Path, title: str, meta_html: str, sections: list[Section]) -> Path:
    """Writes out/index.html, out/assets/report.css and every figure (PNG) and table (CSV) into
    out/assets/, then removes the figures and tables of an earlier build that this one did not
    write (module docs); returns the page's path."""
    assets = make_dir(checked_path(out, "out") / ASSETS)
    written = [write_text(assets / "report.css", _CSS.lstrip())]
    body = "".join(_section_html(s, assets, 2, written) for s in sections)
    page = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{html.escape(title)}</title>"
        f"<link rel='icon' href='data:,'><link rel='stylesheet' href='{ASSETS}/report.css'></head><body>"
        f"<h1>{html.escape(title)}</h1><p class='meta'>{meta_html}</p>"
        f"<nav id='contents'><b>Contents</b>{_toc(sections)}</nav>{body}</body></html>\n"
    )
    path = write_text(assets.parent / "index.html", page)
    remove_stale(assets, written, ASSET_GLOBS)
    return path
