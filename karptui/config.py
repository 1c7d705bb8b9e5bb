"""Where karptui's own config files live: ``$KARPTUI_CONFIG_DIR``, else the platform's user config dir
(``$XDG_CONFIG_HOME/karptui``, by default ``~/.config/karptui``). Themes and discounts both look there."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_config_dir

CONFIG_DIR_ENV = "KARPTUI_CONFIG_DIR"


def config_dir() -> Path:
    return Path(os.environ.get(CONFIG_DIR_ENV) or user_config_dir("karptui"))
