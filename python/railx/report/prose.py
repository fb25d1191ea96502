"""Explanations taken from the docs: a section of a Markdown file (by its heading), rendered to
HTML for the page. Images are dropped (the report draws its own figures) and links that lead
outside the page (other docs, anchors of the docs) become plain text, so no link of the report
is broken and nothing is fetched when it opens."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from railx.config import ConfigError
from railx.messages import shown

__all__ = ["docs_section", "markdown_html"]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_DEMOTE_TO = 4  # the page's own headings use h1-h3


def docs_section(path: Path, heading: str) -> str:
    """The Markdown under `heading` in `path`, up to the next heading of the same or a higher
    level (the heading itself left out)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = level = None
    for i, line in enumerate(lines):
        match = _HEADING.match(line)
        if not match:
            continue
        if start is None and match.group(2) == heading:
            start, level = i + 1, len(match.group(1))
        elif start is not None and level is not None and len(match.group(1)) <= level:
            return "\n".join(lines[start:i]).strip()
    if start is None:
        raise ConfigError(
            f"section = {shown(heading)}: no such heading in {path}; the catalogue must name one of its headings"
        )
    return "\n".join(lines[start:]).strip()


def _keep_inline(children: list[Token]) -> list[Token]:
    out: list[Token] = []
    dropped_links = 0
    for token in children:
        if token.type == "image":
            continue
        if token.type == "link_open" and not str(token.attrGet("href") or "").startswith(("http://", "https://")):
            dropped_links += 1
            continue
        if token.type == "link_close" and dropped_links:
            dropped_links -= 1
            continue
        out.append(token)
    return out


def markdown_html(text: str) -> str:
    """Markdown (CommonMark with tables) as HTML, headings demoted below the page's own, images
    dropped and links outside the web kept only as their text."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, _DEMOTE_TO + int(token.tag[1]) - 2)}"
        if token.type == "inline" and token.children:
            token.children = _keep_inline(token.children)
    return md.renderer.render(tokens, md.options, {})
