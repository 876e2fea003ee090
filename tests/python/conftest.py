"""Shared fixtures of the Python tests (run by CTest with PYTHONPATH=<build>/python,
ICTUS_CLI and ICTUS_SOURCE_DIR set; see tests/CMakeLists.txt)."""

import os
import pathlib
import subprocess

import pytest

SOURCE = pathlib.Path(os.environ.get("ICTUS_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def example():
    """The path of examples/<name>.yaml."""
    return lambda name: str(SOURCE / "examples" / f"{name}.yaml")


@pytest.fixture
def bad_model():
    """The path of tests/bad_models/<name>.yaml."""
    return lambda name: str(SOURCE / "tests" / "bad_models" / f"{name}.yaml")


@pytest.fixture
def cli(tmp_path):
    """Runs `ictus run MODEL --out DIR --quiet [ARGS]` and returns DIR."""
    binary = os.environ.get("ICTUS_CLI")
    if not binary:
        pytest.fail("ICTUS_CLI is not set: run the Python tests through ctest")

    def run(model, *args):
        out = tmp_path / "cli_out"
        subprocess.run([binary, "run", model, "--out", str(out), "--quiet", *args], check=True)
        return out

    return run
