"""A drill-in: titled sections of lines (a node's pods and taints, a pod's constraints and verdicts).

Every section is drawn by one Static, its name in the theme's accent above its lines: a widget per
name and per section (a dozen on a node) cost Textual a style pass, a layout and a draw each, most of a
drill-in's time on a big cluster, for text that only needs reading.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from ..keybar import KeyBar
from ..plain import plain, plain_lines


SECTION_STYLE = "$accent bold"  # a section's name (resolved with the theme in use when it is drawn)


class DetailScreen(Screen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("j", "scroll(1)", "Down", show=False),
        Binding("k", "scroll(-1)", "Up", show=False),
        Binding("g", "home", "Top", show=False),
        Binding("G", "end", "Bottom", show=False),
        Binding("y", "yaml", "YAML"),
    ]

    def __init__(self, title: str, sections: dict[str, list[str]], node: str = "",
                 ref: tuple[str, str] | None = None) -> None:
        super().__init__()
        self.heading = title
        self.sections = sections
        self.node = node            # the node drilled into, whose sections may fill in later
        self.ref = ref              # ("pod", "ns/name") or ("node", name): what y shows the YAML of

    def compose(self) -> ComposeResult:
        yield Static(plain(self.heading), id="source")  # "node NAME": the name is data
        with VerticalScroll():
            yield Static(self._text(), id="sections")
        yield KeyBar()

    def _text(self) -> Content:
        """Each section as a blank line, its name (bold, in the theme's accent) and its lines."""
        parts: list[Content] = []
        for name, lines in self.sections.items():
            parts += [Content(""), Content(name).stylize(SECTION_STYLE), plain_lines(lines)]
        return Content("\n").join(parts)

    def show(self, title: str, sections: dict[str, list[str]], node: str = "",
             ref: tuple[str, str] | None = None) -> None:
        """Show another drill-in in this screen (the app keeps one for the main screen's drill-ins: a
        new screen is composed, mounted, laid out and drawn twice before it is seen), from its top."""
        self.heading, self.sections, self.node, self.ref = title, sections, node, ref
        if self.is_mounted:
            self.query_one("#source", Static).update(plain(title))
            self.query_one("#sections", Static).update(self._text())
            self.query_one(VerticalScroll).scroll_home(animate=False)
            self.refresh_bindings()   # y: there is a manifest to show, or not

    def set_section(self, name: str, lines: list[str]) -> None:
        """A section's lines, now known (a node's disruption verdicts come from a background run)."""
        if name in self.sections:
            self.sections[name] = lines
            if self.is_mounted:
                self.query_one("#sections", Static).update(self._text())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.ref is not None if action == "yaml" else True

    def action_yaml(self) -> None:
        """``y`` in a node's or pod's drill-in: its manifest (a screen of its own; escape comes back)."""
        if self.ref is not None:
            self.app.show_yaml(*self.ref)

    def action_scroll(self, step: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=step)

    def action_home(self) -> None:
        self.query_one(VerticalScroll).scroll_home()

    def action_end(self) -> None:
        self.query_one(VerticalScroll).scroll_end()
