"""The panes' names above the tables, the one shown lit and underlined: Textual's tabs, drawn by one widget.

Textual's TabbedContent is a tree of ten widgets above the panes (a scroll container, a bar, a
list, a Tab per pane, an underline) whose classes, styles and underline change on every switch, each
one a style update and a redraw of its own, and the switch came in three frames instead of one.
Nothing here needs a widget per name: the names are read (``1``-``5`` switch panes; a click on a name
does too), so two lines drawn by one widget do, repainted in place when the pane changes. The panes
themselves stay mounted under a ContentSwitcher, which only toggles which one is displayed.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

BAR = "━"


class PaneBar(Widget):
    """``Nodes  Pending  Activity …`` with the shown pane lit and underlined, in the colours of Textual's Tabs."""

    DEFAULT_CSS = """
    PaneBar { height: 2; }
    PaneBar > .panebar--name { color: $foreground 50%; }
    PaneBar > .panebar--shown { color: $foreground; }
    PaneBar > .panebar--bar { color: $block-cursor-background; }
    PaneBar > .panebar--rail { color: $foreground 10%; }
    """
    COMPONENT_CLASSES = {"panebar--name", "panebar--shown", "panebar--bar", "panebar--rail"}

    shown: reactive[str] = reactive("", layout=False)

    class Chosen(Message):
        """A pane's name was clicked."""

        def __init__(self, pane: str) -> None:
            super().__init__()
            self.pane = pane

    def __init__(self, panes: tuple[tuple[str, str], ...], shown: str, id: str | None = None) -> None:
        """``panes``: (id, title) in the order shown."""
        super().__init__(id=id)
        self.panes = panes
        self.set_reactive(PaneBar.shown, shown)

    def _spans(self) -> list[tuple[str, int, int]]:
        """Each pane's (id, first cell, end): a name takes its title with a cell either side."""
        spans, at = [], 0
        for pane, title in self.panes:
            spans.append((pane, at, at + len(title) + 2))
            at += len(title) + 2
        return spans

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y == 0:
            name = base + self.get_component_rich_style("panebar--name")
            shown = base + self.get_component_rich_style("panebar--shown")
            segments = [Segment(f" {title} ", shown if pane == self.shown else name) for pane, title in self.panes]
        elif y == 1:
            rail = base + self.get_component_rich_style("panebar--rail")
            bar = base + self.get_component_rich_style("panebar--bar")
            # under the name itself (not its padding), the rail ending in half cells either side, as Tabs draw it
            start, end = next(((s + 1, e - 1) for pane, s, e in self._spans() if pane == self.shown), (0, 0))
            segments = [Segment(BAR * (start - 1) + "╸" if start else "", rail), Segment(BAR * (end - start), bar),
                        Segment("╺" + BAR * max(0, width - end - 1), rail)]
        else:
            return Strip.blank(width, base)
        return Strip(segments).crop_extend(0, width, base)

    def on_click(self, event) -> None:
        pane = next((pane for pane, start, end in self._spans() if start <= event.x < end), None)
        if pane is not None:
            self.post_message(self.Chosen(pane))
