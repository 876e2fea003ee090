"""Errors become Python exceptions with the command line's message and location."""

import pathlib
import re

import pytest

import ictus

from conftest import SOURCE


def test_a_bad_model_raises_model_error_with_file_line_column(bad_model):
    path = bad_model("duplicate_key")
    with pytest.raises(ictus.ModelError) as caught:
        ictus.load_model(path)
    e = caught.value
    assert isinstance(e, ictus.Error) and isinstance(e, RuntimeError)
    assert (e.file, e.line, e.column) == (path, 10, 5)
    assert e.location == f"{path}:10:5"
    assert e.element == "body 'bob'"
    assert "key 'mass' appears twice" in e.detail
    assert str(e) == f"{path}:10:5: error: body 'bob': {e.detail}"


def test_a_model_error_of_a_parsed_text_names_its_source():
    text = "ictus: 1\nbodies:\n  bob:\n    mass: -1\n    inertia: [1, 1, 1]\n"
    with pytest.raises(ictus.ModelError) as caught:
        ictus.parse_model(text, "inline.yaml")
    assert caught.value.location.startswith("inline.yaml:4:")
    assert "mass" in str(caught.value)


def test_an_override_of_an_unknown_parameter_is_refused(example):
    with pytest.raises(ictus.ModelError, match="nonsense"):
        ictus.load_model(example("pendulum"), {"nonsense": 1.0})


def test_errors_of_a_model_built_in_python_have_no_location():
    model = ictus.Model()
    with pytest.raises(ictus.ModelError) as caught:
        model.add_body(ictus.Body("bob", mass=-1.0))
    assert caught.value.location == "" and caught.value.element == "body 'bob'"
    model.add_body(ictus.Body("bob", mass=1.0))  # the refused body left its name free
    model.add_body(ictus.Body("arm"))
    with pytest.raises(ictus.ModelError, match="unit vector"):
        model.add_joint("pin", "revolute", "ground", "arm", at=[0, 0, 0], axis=[0, 0, 2])
    with pytest.raises(ictus.ModelError, match="unknown body|no body|'nobody'"):
        model.add_joint("pin", "revolute", "ground", "nobody", at=[0, 0, 0])


def test_a_run_that_fails_raises_simulation_error_with_its_time(bad_model):
    model = ictus.load_model(bad_model("fails_midway"))
    sim = ictus.Simulation(model)
    with pytest.raises(ictus.SimulationError) as caught:
        sim.run()
    assert caught.value.time > 0.0
    assert f"{caught.value.time:.9g}" in str(caught.value)
    results = sim.results()  # the samples up to the failure stay readable
    assert len(results) > 0 and results.t[-1] <= caught.value.time
    assert results.events[-1].kind == "failure"


def expectations(path):
    """The header of a tests/bad_models file (tests/cli/run_bad_models.cmake)."""
    header = {"exit": 2, "command": "run", "expect": [], "set": {}, "expect-file": []}
    for line in pathlib.Path(path).read_text().splitlines():
        m = re.match(r"^# (expect|expect-exit|expect-file|command|set): (.+)$", line)
        if not m:
            continue
        key, value = m.groups()
        if key == "expect-exit":
            header["exit"] = int(value)
        elif key == "set":
            name, _, v = value.partition("=")
            header["set"][name] = v
        elif key in ("expect", "expect-file"):
            header[key].append(value)
        else:
            header[key] = value
    return header


# checks of the command line alone (output size, --set), not of the library
CLI_ONLY = {"output_step_too_small", "set_malformed"}
# what the command line says about its output directory
CLI_TEXTS = ("results.incomplete.csv", "no results written", "partial results:")
BAD_MODELS = sorted(p for p in (SOURCE / "tests" / "bad_models").glob("*.yaml")
                    if expectations(p)["command"] == "run" and expectations(p)["exit"] in (2, 3)
                    and p.stem not in CLI_ONLY)


@pytest.mark.parametrize("path", BAD_MODELS, ids=lambda p: p.stem)
def test_every_bad_model_raises_the_command_line_message(path):
    """Exit status 2 is a ModelError, 3 a SimulationError, with every text the command
    line's message is expected to contain."""
    header = expectations(path)
    expected = ictus.ModelError if header["exit"] == 2 else ictus.SimulationError
    with pytest.raises(expected) as caught:
        ictus.run(str(path), header["set"])
    for text in header["expect"]:
        if not any(cli_text in text for cli_text in CLI_TEXTS):
            assert text in str(caught.value)
