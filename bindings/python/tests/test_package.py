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


def test_project_urls_name_the_repository():
    # PyPI's links and the crates' `repository` (the workspace's) agree.
    repository = re.search(
        r'^repository = "([^"]+)"', (ROOT / "Cargo.toml").read_text(), re.M
    ).group(1)
    pyproject = (ROOT / "bindings" / "python" / "pyproject.toml").read_text()
    urls = pyproject[pyproject.index("[project.urls]") :].split("\n[", 1)[0]
    assert f'Repository = "{repository}"' in urls
    assert all(
        line.split(" = ")[1].strip('"').startswith(repository)
        for line in urls.splitlines()[1:]
        if " = " in line
    )


def test_typed_package():
    package = pathlib.Path(jumpshard.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "_jumpshard.pyi").exists()


def test_docstring_examples():
    assert doctest.testmod(jumpshard, raise_on_error=False).failed == 0
