"""Themes as data: ``themes/*.yaml`` (bundled) and the user's themes directory -> Textual themes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from platformdirs import user_config_dir
from textual.color import Color, ColorParseError
from textual.theme import Theme

from ..errors import InputError
from ..sources.bundled import data_dir

if TYPE_CHECKING:
    from textual.app import App

DEFAULT_THEME = "karptui-dark"
CONFIG_DIR_ENV = "KARPTUI_CONFIG_DIR"

COLOURS = ("primary", "secondary", "accent", "warning", "error", "success",
           "foreground", "background", "surface", "panel", "boost")
NUMBERS = ("luminosity_spread", "text_alpha")
KEYS = ("name", "dark", "variables", *COLOURS, *NUMBERS)


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
    for key in NUMBERS:
        if key in data and (isinstance(data[key], bool) or not isinstance(data[key], (int, float))):
            raise InputError(path, f"{key}: must be a number")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in variables.items()
    ):
        raise InputError(path, "variables: must map variable names to strings")
    return data


def load_theme_file(path: str | Path) -> Theme:
    """Read and validate one theme file; any problem is an InputError with a one-line message."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read theme: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "parse error"
        raise InputError(path, f"not valid YAML: {problem}{where}") from None
    return Theme(**_check(path, data))


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
    config = os.environ.get(CONFIG_DIR_ENV) or user_config_dir("karptui")
    return Path(config) / "themes"


def user_themes(warnings: list[str]) -> list[Theme]:
    """The user's theme files that load; each one that does not adds a line to ``warnings``."""
    themes = []
    for path in _theme_files(user_theme_dir()):
        try:
            themes.append(load_theme_file(path))
        except InputError as exc:
            warnings.append(f"theme skipped: {exc}")
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

    known = [t.name for t in bundled_themes() + user_themes([])] + list(BUILTIN_THEMES)
    if name not in known:
        raise InputError("--theme", f"no theme named {name!r} (known: {', '.join(known)})")


def next_theme(current: str, names: list[str]) -> str:
    """The theme after ``current`` in ``names``, wrapping; the first if ``current`` is not there."""
    if not names:
        return current
    if current not in names:
        return names[0]
    return names[(names.index(current) + 1) % len(names)]
