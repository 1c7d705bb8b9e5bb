"""Themes as data: ``themes/*.yaml`` (bundled) and the user's themes directory -> Textual themes.

A user theme is input: a file that would break the app (too big, too deep for the
YAML parser, numbers a float cannot hold, CSS variables Textual cannot parse) is
refused here, when it is read, with one line naming it, so the app skips it with a
warning instead of failing on start or when ``t`` reaches it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.color import Color, ColorParseError
from textual.css.stylesheet import Stylesheet, StylesheetError
from textual.css.tokenize import tokenize_values
from textual.css.tokenizer import TokenError
from textual.theme import Theme

from ..config import config_dir
from ..errors import InputError
from ..sources import yaml_load
from ..sources.decode import read_text
from ..sources.bundled import data_dir

if TYPE_CHECKING:
    from textual.app import App

DEFAULT_THEME = "karptui-dark"

COLOURS = ("primary", "secondary", "accent", "warning", "error", "success",
           "foreground", "background", "surface", "panel", "boost")
NUMBERS = ("luminosity_spread", "text_alpha")
KEYS = ("name", "dark", "variables", *COLOURS, *NUMBERS)
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")  # what ``$name`` in Textual CSS can refer to


def _check(path: Path, data: Any) -> dict[str, Any]:
    """The fields of a Theme, or InputError naming the first problem found."""
    if not isinstance(data, dict):
        raise InputError(path, "expected a mapping of theme fields (name, primary, ...)")
    unknown = sorted(str(key) for key in data if key not in KEYS)
    if unknown:
        raise InputError(path, f"unknown key {', '.join(unknown)} (allowed: {', '.join(KEYS)})")
    for key in ("name", "primary"):
        if key not in data:
            raise InputError(path, f"missing required key {key!r}")
    if not isinstance(data["name"], str) or not data["name"].strip():
        raise InputError(path, "name: must be a non-empty string")
    for key in COLOURS:
        if key not in data:
            continue
        value = data[key]
        if value is None:
            raise InputError(path, f"{key}: empty (an unquoted # starts a YAML comment: write '#RRGGBB')")
        try:
            if not isinstance(value, str):
                raise ColorParseError(str(value))
            Color.parse(value)
        except ColorParseError:
            raise InputError(path, f"{key}: {value!r} is not a colour (quote '#RRGGBB' in YAML)") from None
    if not isinstance(data.get("dark", True), bool):
        raise InputError(path, "dark: must be true or false")
    for key in NUMBERS:  # fractions: a colour's alpha, a share of luminosity
        value = data.get(key, 0.5)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise InputError(path, f"{key}: must be a number from 0 to 1")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in variables.items()
    ):
        raise InputError(path, "variables: must map variable names to strings")
    for name in variables:
        if not VARIABLE_NAME.fullmatch(name):
            raise InputError(path, f"variables: {name!r} is not a CSS variable name (letters, digits, - and _)")
    return data


def _probe_property(name: str) -> str:
    """A CSS property that takes what Textual's variable ``name`` holds."""
    if name.endswith("style"):
        return "text-style"
    return "background" if "background" in name else "color"


def _check_css(path: Path, theme: Theme) -> None:
    """Textual's own CSS parser on the theme's colour system and each variable, now rather
    than when the theme is applied: there a bad value takes the whole app down.

    Each variable is used once, in a property of the kind Textual's variable of that name
    takes (a colour, a background, a text style); names Textual does not use are only
    tokenized, as Textual tokenizes every variable it is given.
    """
    try:
        generated = theme.to_color_system().generate()
    except (ArithmeticError, ValueError) as exc:
        raise InputError(path, f"cannot make a colour system from it: {' '.join(str(exc).split())}") from None
    for name, value in theme.variables.items():
        what = _probe_property(name) if name in generated else ""
        try:
            tokenize_values({name: value})  # as Textual does to every variable it is given
            if what:
                sheet = Stylesheet(variables={**generated, **theme.variables})
                sheet.add_source(f"Probe {{ {what}: ${name}; }}", read_from=(str(path), ""))
                sheet.parse()
        except (StylesheetError, TokenError):
            kind = f" for {what}" if what else ""
            raise InputError(path, f"variables: {name}: {value!r} is not a valid Textual CSS value{kind}") from None


def load_theme_file(path: str | Path) -> Theme:
    """Read and validate one theme file; any problem is an InputError with a one-line message."""
    path = Path(path)
    text = read_text(path, small=True)  # the one capped reader: size, gzip, binary data
    try:
        # the one YAML entry point: depth and aliases checked before anything is built
        data = yaml_load.load(text, str(path))
    except (ValueError, OverflowError, RecursionError) as exc:  # int() of thousands of digits, and the like
        raise InputError(path, f"not valid YAML: {' '.join(str(exc).split()[:12])}") from None
    theme = Theme(**_check(path, data))
    _check_css(path, theme)
    return theme


def _theme_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".yaml", ".yml"))


def bundled_themes() -> list[Theme]:
    """The themes shipped with karptui, the default first, then by file name."""
    themes = [load_theme_file(p) for p in _theme_files(data_dir("themes"))]
    return sorted(themes, key=lambda t: t.name != DEFAULT_THEME)


def user_theme_dir() -> Path:
    """``$KARPTUI_CONFIG_DIR/themes``, else the platform's user config dir for karptui + ``themes``."""
    return config_dir() / "themes"


def _user_themes() -> tuple[list[Theme], dict[str, InputError]]:
    """The user's theme files that load, and why each other one does not, by file stem."""
    themes, errors = [], {}
    for path in _theme_files(user_theme_dir()):
        try:
            themes.append(load_theme_file(path))
        except InputError as exc:
            errors[path.stem] = exc
    return themes, errors


def user_themes(warnings: list[str]) -> list[Theme]:
    """The user's theme files that load; each one that does not adds a line to ``warnings``."""
    themes, errors = _user_themes()
    warnings.extend(f"theme skipped: {exc}" for exc in errors.values())
    return themes


def register_themes(app: App, warnings: list[str] | None = None) -> list[str]:
    """Register bundled then user themes on ``app``; return their names, bundled first.

    A user theme with a bundled theme's name replaces it (keeping its place in the order).
    """
    names: list[str] = []
    for theme in bundled_themes() + user_themes(warnings if warnings is not None else []):
        app.register_theme(theme)
        if theme.name not in names:
            names.append(theme.name)
    return names


def check_theme_name(name: str) -> None:
    """``--theme`` must name a bundled, user or Textual theme: InputError otherwise, before the screen is taken."""
    from textual.theme import BUILTIN_THEMES

    mine, errors = _user_themes()
    known = [t.name for t in bundled_themes() + mine] + list(BUILTIN_THEMES)
    if name not in known:
        if name in errors:  # the user's file of that name is the one that is broken: say why
            raise errors[name]
        raise InputError("--theme", f"no theme named {name!r} (known: {', '.join(known)})")


def next_theme(current: str, names: list[str]) -> str:
    """The theme after ``current`` in ``names``, wrapping; the first if ``current`` is not there."""
    if not names:
        return current
    if current not in names:
        return names[0]
    return names[(names.index(current) + 1) % len(names)]
