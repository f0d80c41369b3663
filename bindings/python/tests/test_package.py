"""The installed package: its version, stubs and docstring examples."""

import doctest
import pathlib
import re

import jumpshard

ROOT = pathlib.Path(__file__).parents[3]


def cargo_version(path: pathlib.Path) -> str:
    return re.search(r'^version = "([^"]+)"', path.read_text(), re.M).group(1)


def test_version_is_the_library_version():
    # One version: the library's Cargo.toml; the binding crate's (which
    # maturin puts on the wheel) must follow it.
    assert jumpshard.__version__ == cargo_version(ROOT / "Cargo.toml")
    assert cargo_version(ROOT / "bindings" / "python" / "Cargo.toml") == jumpshard.__version__


def test_typed_package():
    package = pathlib.Path(jumpshard.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "_jumpshard.pyi").exists()


def test_docstring_examples():
    assert doctest.testmod(jumpshard, raise_on_error=False).failed == 0
