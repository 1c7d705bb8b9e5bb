"""Screenshots that look right outside a browser.

Textual saves a screenshot as SVG (Rich's export): each run of equally styled cells is one
``<text>`` element placed at its first cell, its width given by ``textLength``. Browsers honour
``textLength``; common converters and viewers (rsvg, image previews in chat tools) do not, and lay
each run out with their own font's advances, so a run holding a glyph the font lacks (``≠``, ``▲``,
box drawing) drifts and its last cells overlap the next run. Placing every visible character at its
own cell keeps the grid whatever the font: that is what :func:`cell_aligned_svg` does to the SVG.
"""

from __future__ import annotations

import html
import re

from rich.cells import cell_len

# one run of text in Rich's SVG export (the window title has no textLength and is left alone)
_RUN = re.compile(r'<text class="([^"]*)" x="([0-9.]+)" y="([0-9.]+)" textLength="([0-9.]+)" '
                  r'clip-path="([^"]*)">([^<]*)</text>')


def cell_aligned_svg(svg: str) -> str:
    """``svg`` with each run of text split into one element per visible character, at its cell."""
    return _RUN.sub(_split, svg)


def _split(match: re.Match) -> str:
    style, x, y, length, clip, escaped = match.groups()
    text = html.unescape(escaped)
    cells = cell_len(text)
    if not cells:
        return match.group(0)
    width = float(length) / cells
    start = float(x)
    out, at = [], 0
    for char in text:
        size = cell_len(char)
        if char not in (" ", "\u00a0") and size:
            out.append(f'<text class="{style}" x="{start + at * width:.1f}" y="{y}" '
                       f'textLength="{size * width:.1f}" clip-path="{clip}">{html.escape(char)}</text>')
        at += size
    return "".join(out)
