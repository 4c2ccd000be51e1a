"""The engine configs and networks that travel inside the installed package.

``pip install`` of the wheel (or ``pipx install``) gives an engine that plays as a checkout
does with ``configs/engine/default.toml``: this package holds the configs that play without the
training stack (``configs/engine/*.toml``) and the networks they name, as ONNX Runtime plays them
(``weights/x.onnx``, ``x.int8.onnx`` and the model card ``x.card.json``; the ``.keras`` files
stay in the repository, where training needs them). The folders mirror the repository's layout,
so a config's relative paths (``../../weights/zero-9x9.keras``) resolve the same way in both
places: in the package the absent ``.keras`` file plays from its ONNX export
(``dlgo.inference.files.network_file``).

In a checkout the files here are symbolic links to the repository's own files (one copy of each
in git); building the wheel copies what they point to. Every path returned is resolved, so a
checkout's engine names ``configs/engine/default.toml`` as it always did.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SHIPPED_DIR", "DEFAULT_CONFIG", "config_path", "config_paths", "network_paths", "installed_from_checkout"]

SHIPPED_DIR = Path(__file__).parent
DEFAULT_CONFIG = "default"


def config_path(name: str = DEFAULT_CONFIG) -> Path | None:
    """The shipped engine config ``name`` (``default``, ``zero-9x9``, ...), resolved; None when it
    is not shipped."""
    path = SHIPPED_DIR / "configs" / "engine" / f"{name}.toml"
    return path.resolve() if path.is_file() else None


def config_paths() -> list[Path]:
    """Every shipped engine config, resolved, the default first."""
    paths = sorted(
        (SHIPPED_DIR / "configs" / "engine").glob("*.toml"), key=lambda p: (p.stem != DEFAULT_CONFIG, p.stem)
    )
    return [p.resolve() for p in paths if p.is_file()]


def network_paths() -> list[Path]:
    """The shipped networks' ONNX exports (fp32; the int8 file and the card lie beside each)."""
    paths = sorted((SHIPPED_DIR / "weights").glob("*.onnx"))
    return [p.resolve() for p in paths if not p.name.endswith(".int8.onnx") and p.is_file()]


def installed_from_checkout() -> bool:
    """True when these files are links into a repository checkout (an editable install), False in
    an installed package."""
    default = SHIPPED_DIR / "configs" / "engine" / f"{DEFAULT_CONFIG}.toml"
    return default.is_symlink()
