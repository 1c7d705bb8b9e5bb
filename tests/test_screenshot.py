"""Saved screenshots keep the terminal's grid in converters that ignore SVG's textLength (issue 29
item 13: rows holding ≠ or ▲ drifted and overlapped the next column when turned into PNG)."""

from __future__ import annotations

import re

from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.app import KarptuiApp
from karptui.tui.screenshot import cell_aligned_svg

RUN = ('<text class="terminal-r1" x="12.2" y="20" textLength="73.2" clip-path="url(#terminal-line-0)">'
       '≠&#160;a&lt;b▲</text>')


def test_each_visible_character_sits_at_its_own_cell():
    out = cell_aligned_svg(f"<svg>{RUN}</svg>")
    placed = re.findall(r'x="([0-9.]+)" y="20" textLength="([0-9.]+)"[^>]*>([^<]*)</text>', out)
    # six cells of 12.2 px from x=12.2: '≠' at 0, the space skipped, 'a' at 2, '<' at 3, 'b' at 4, '▲' at 5
    assert placed == [("12.2", "12.2", "≠"), ("36.6", "12.2", "a"), ("48.8", "12.2", "&lt;"),
                      ("61.0", "12.2", "b"), ("73.2", "12.2", "▲")]


def test_the_window_title_and_other_elements_are_left_alone():
    svg = '<svg><text class="terminal-title" x="984" y="27">karptui</text><rect x="0" y="0"/></svg>'
    assert cell_aligned_svg(svg) == svg


async def test_a_saved_screenshot_is_cell_aligned_and_the_test_snapshots_are_not(tmp_path):
    app = KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")), simulate_on_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        await pilot.pause()
        plain = app.export_screenshot()
        app.deliver_screenshot("shot.svg", str(tmp_path))
        await pilot.pause(0.5)
    saved = (tmp_path / "shot.svg").read_text()
    runs = re.findall(r'<text class="terminal-[0-9-]*r\d+"[^>]*>([^<]*)</text>', saved)
    assert runs and all(len(__import__("html").unescape(r)) == 1 for r in runs)   # one character each
    assert "≠" in saved and "textLength" in plain and plain != saved
