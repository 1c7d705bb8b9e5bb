"""The footer: the keys that work here, as one line of text.

Textual's Footer builds a widget per key and rebuilds them all whenever focus moves,
which on a big screen costs over 100 ms per pane switch. The keys only need to be
read, not clicked (every action is on the keyboard and in the command palette), so
one line of styled text does, redrawn in well under a millisecond. It is a plain
Widget, not a Static: Static.update asks for a new layout of the whole screen, and
a one-line bar docked at the bottom never changes size.
"""

from __future__ import annotations

from rich.text import Text
from textual.screen import Screen
from textual.widget import Widget


class KeyBar(Widget):
    """Key hints from the screen's active bindings, in Footer's colours."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    KeyBar > .keybar--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    """
    COMPONENT_CLASSES = {"keybar--key", "keybar--description"}

    def __init__(self) -> None:
        super().__init__()
        self._keys: tuple[tuple[str, str, bool], ...] = ()   # (key, what it does, enabled), as shown

    def render(self) -> Text:
        """Styled as it is drawn: a theme chosen after the keys were read (``t``, or the start-up theme
        set once the bar is mounted) colours them too."""
        key_style = self.get_component_rich_style("keybar--key")
        text = Text(no_wrap=True, overflow="ellipsis")
        for key, description, enabled in self._keys:
            dim = "" if enabled else " dim"
            text.append(f" {key} ", style=key_style + dim if dim else key_style)
            text.append(f"{description} ", style=dim.strip())
        return text

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen:
            keys = self.keys()
            if keys != self._keys:
                self._keys = keys
                self.refresh()  # a repaint of this one line, no layout

    def keys(self) -> tuple[tuple[str, str, bool], ...]:
        """The keys the screen's active bindings show, the command palette's last."""
        keys = []
        seen: set[str] = set()
        palette = None
        for _, binding, enabled, _ in self.screen.active_bindings.values():
            if binding.action == "app.command_palette" or binding.key == self.app.COMMAND_PALETTE_BINDING:
                palette = binding
                continue
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            keys.append((self.app.get_key_display(binding), binding.description, enabled))
        if palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            keys.append((self.app.get_key_display(palette), palette.description or "palette", True))
        return tuple(keys)


class Crumb(Widget):
    """One line under the tables: the pane shown, its filter and its sort (``nodes  /web  · sort cpu% ▲``).

    Like the key bar, a plain Widget redrawn in place: a Static's update would ask for a new
    layout of the whole screen on every pane switch and every key typed into the filter.
    """

    DEFAULT_CSS = """
    Crumb { height: 1; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Text()

    def render(self) -> Text:
        return self._text

    def show(self, text: str) -> None:
        """``text`` is shown as it is (a filter the operator typed is not markup)."""
        if text != self._text.plain:
            self._text = Text(text, no_wrap=True, overflow="ellipsis")
            self.refresh()
