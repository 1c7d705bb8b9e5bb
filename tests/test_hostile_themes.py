"""Issue 12, themes: a broken user theme is skipped with one warning, never a crash.

Each file is generated here: deep nesting, numbers Python will not read or a float
cannot hold, NaN and infinity, CSS variables with bad names, values Textual's CSS
tokenizer or parser rejects (markup among them), and a file past the size bound.
The app must start, say which file it skipped, and cycle every theme with ``t``.
"""

from __future__ import annotations

import json

import pytest
from textual.widgets._toast import Toast

from karptui import limits
from karptui.errors import InputError
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.text import visible
from karptui.tui import themes
from karptui.tui.app import KarptuiApp

HEAD = "name: {name}\nprimary: '#336699'\n"
BAD = {
    "deep": HEAD + "variables: " + "[" * 30_000,
    "digits": HEAD + "luminosity_spread: " + "9" * 5_000,
    "huge": HEAD + "luminosity_spread: " + "9" * 400,
    "nan": HEAD + "text_alpha: .nan\n",
    "inf": HEAD + "luminosity_spread: .inf\n",
    "negative": HEAD + "text_alpha: -3\n",
    "var-name": HEAD + "variables: {'bad name!': 'red'}\n",
    "var-token": HEAD + "variables: {'footer-key-foreground': 'not a colour ['}\n",
    "var-markup": HEAD + "variables: {'block-cursor-text-style': '[@click=app.quit]x[/]'}\n",
    "var-kind": HEAD + "variables: {'footer-key-foreground': '12px'}\n",
    "var-style": HEAD + "variables: {'block-cursor-text-style': 'red'}\n",
    "big": HEAD + "# " + "x" * 5_000 + "\n",
}
GOOD = HEAD + "variables: {'footer-key-foreground': '#ff0000', 'block-cursor-text-style': 'bold underline'}\n"


@pytest.fixture
def small_limit(monkeypatch):
    """The size bound made small, so "big" is past it without writing 64 MiB."""
    monkeypatch.setattr(limits, "MAX_SMALL_FILE_BYTES", 4_096)  # the one reader reads the bound from limits


def write_theme(stem: str, text: str) -> None:
    folder = themes.user_theme_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.yaml").write_text(text.replace("{name}", stem))


@pytest.mark.parametrize("stem", sorted(BAD))
def test_a_bad_theme_file_is_one_input_error(stem, small_limit):
    write_theme(stem, BAD[stem])
    with pytest.raises(InputError) as caught:
        themes.load_theme_file(themes.user_theme_dir() / f"{stem}.yaml")
    assert "\n" not in str(caught.value) and f"{stem}.yaml: " in str(caught.value)


async def test_the_app_starts_skips_each_bad_theme_and_cycles_the_rest(small_limit):
    for stem, text in BAD.items():
        write_theme(stem, text)
    write_theme("mine", GOOD)
    app = KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")), simulate_on_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        warnings = [n.message for n in app._notifications if n.severity == "warning"]
        assert len(warnings) == len(BAD)
        for stem in BAD:
            assert any(f"{stem}.yaml: " in w for w in warnings), (stem, warnings)
        assert "mine" in app.theme_names and not set(BAD) & set(app.theme_names)
        seen = {app.theme}
        for _ in app.theme_names:
            await pilot.press("t")
            await pilot.pause()
            seen.add(app.theme)
        assert seen == set(app.theme_names)
        app.theme = "mine"  # a good theme's variables do apply
        await pilot.pause()
        assert app.get_css_variables()["footer-key-foreground"] == "#ff0000"
        await pilot.press("q")
    assert app.return_code == 0


@pytest.mark.parametrize("stem", ["deep", "var-kind", "inf"])
def test_theme_flag_naming_a_bad_theme_is_one_line_and_exit_2(cli, stem, small_limit):
    write_theme(stem, BAD[stem])
    code, out, err = cli("--theme", stem, "demo")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and f"{stem}.yaml: " in err, err


async def test_theme_names_and_warnings_are_shown_literally():
    """A theme's file name and its name are data: notifications show them as written."""
    link, esc = "[@click=app.quit]x", "\x1b]0;pwned\x07"  # no "/": it is a file name
    write_theme(link + esc, BAD["nan"])
    write_theme("fancy", HEAD.replace("{name}", json.dumps("[b]fancy" + link + esc)))
    app = KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")), simulate_on_start=False)
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await pilot.pause()
        [warning] = [n for n in app._notifications if n.severity == "warning"]
        assert not warning.markup and visible(link + esc) + ".yaml: " in warning.message
        while app.theme != "[b]fancy" + link + esc:
            await pilot.press("t")
            await pilot.pause()
        last = list(app._notifications)[-1]
        assert not last.markup and last.message == "theme: [b]fancy" + link + visible(esc)
        toasts = " ".join(str(toast.render()) for toast in app.screen.query(Toast))
        assert "theme: [b]fancy" + link in toasts
