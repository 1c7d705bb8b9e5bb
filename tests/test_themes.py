"""Bundled and user themes load, validate, register on a real App and cycle."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.color import Color

from karptui.errors import InputError
from karptui.tui.themes import (
    DEFAULT_THEME, bundled_themes, load_theme_file, next_theme, register_themes,
    user_theme_dir, user_themes,
)

BUNDLED = {"karptui-dark", "karptui-light", "karptui-high-contrast", "karptui-colorblind"}
GOOD = 'name: my-theme\nprimary: "#336699"\nbackground: "#101010"\ndark: true\n'
BAD = {
    "not-yaml": 'name: broken\nprimary: ["#336699"\n',
    "unknown-key": 'name: x\nprimary: "#336699"\nprimery: "#000000"\n',
    "bad-colour": 'name: x\nprimary: "not-a-colour"\n',
    "missing-primary": 'name: x\nbackground: "#000000"\n',
    "unquoted-hash": 'name: x\nprimary: #336699\n',
}


def write_user_theme(name: str, text: str):
    user_theme_dir().mkdir(parents=True, exist_ok=True)
    path = user_theme_dir() / f"{name}.yaml"
    path.write_text(text)
    return path


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours."""
    def luminance(colour: str) -> float:
        c = Color.parse(colour)
        lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
               for v in (c.r / 255, c.g / 255, c.b / 255)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_four_bundled_themes_exist_default_first():
    names = [t.name for t in bundled_themes()]
    assert set(names) == BUNDLED and len(names) == 4
    assert names[0] == DEFAULT_THEME


async def test_every_theme_registers_and_applies_on_a_real_app():
    app = App()
    async with app.run_test() as pilot:
        names = register_themes(app)
        assert names[:4] == [t.name for t in bundled_themes()]
        for name in names:
            app.theme = name
            await pilot.pause()
            assert app.current_theme.name == name
            assert app.get_css_variables()["primary"]


def test_user_theme_is_picked_up_after_the_bundled_ones(config_dir):
    write_user_theme("mine", GOOD)
    assert user_theme_dir() == config_dir / "themes"
    warnings: list[str] = []
    assert [t.name for t in user_themes(warnings)] == ["my-theme"] and warnings == []
    app = App()
    names = register_themes(app)
    assert names[-1] == "my-theme" and set(names[:4]) == BUNDLED
    assert app.get_theme("my-theme").primary == "#336699"


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_file_is_one_line_input_error(tmp_path, case):
    path = tmp_path / f"{case}.yaml"
    path.write_text(BAD[case])
    with pytest.raises(InputError) as caught:
        load_theme_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message


def test_bad_user_files_are_warnings_not_crashes():
    for case, text in BAD.items():
        write_user_theme(case, text)
    write_user_theme("mine", GOOD)
    warnings: list[str] = []
    assert [t.name for t in user_themes(warnings)] == ["my-theme"]
    assert len(warnings) == len(BAD) and all("\n" not in w for w in warnings)
    registered: list[str] = []
    assert "my-theme" in register_themes(App(), registered)
    assert registered == warnings


def test_next_theme_cycles_and_wraps():
    names = ["a", "b", "c"]
    assert [next_theme(n, names) for n in names] == ["b", "c", "a"]
    assert next_theme("unknown", names) == "a"
    assert next_theme("a", []) == "a"


def test_high_contrast_meets_wcag_aaa():
    theme = {t.name: t for t in bundled_themes()}["karptui-high-contrast"]
    assert (theme.foreground, theme.background) == ("#FFFFFF", "#000000")
    for colour in (theme.foreground, theme.primary, theme.secondary, theme.accent,
                   theme.warning, theme.error, theme.success):
        assert contrast(colour, theme.background) >= 7, colour


def test_colorblind_theme_has_no_red_green_status_pair():
    theme = {t.name: t for t in bundled_themes()}["karptui-colorblind"]
    hue = {k: Color.parse(getattr(theme, k)).hsl.h * 360 for k in ("success", "warning", "error")}
    assert 180 <= hue["success"] <= 260  # blue, not green
    assert 10 <= hue["error"] <= 35  # vermillion
    assert 40 <= hue["warning"] <= 60  # yellow


async def test_a_broken_user_theme_is_reported_in_the_app_not_fatal():
    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.tui.app import KarptuiApp

    write_user_theme("broken", BAD["bad-colour"])
    app = KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")), simulate_on_start=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.theme == DEFAULT_THEME
        assert any("theme skipped" in str(n.message) and "broken.yaml" in str(n.message)
                   for n in app._notifications)


def test_unknown_theme_on_the_command_line_is_bad_input(cli):
    code, out, err = cli("--theme", "no-such-theme", "demo")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no theme named 'no-such-theme'" in err and "karptui-light" in err
