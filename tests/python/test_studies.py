"""ictus.sweep and ictus.optimize: the study runner of `ictus sweep` / `ictus optimize`
from Python (issue 11): the same rows as the command line, failed cases as rows, bad
studies as ModelError with their location."""

import csv
import math
import os
import subprocess

import numpy as np
import pytest

import ictus
from conftest import SOURCE

STUDIES = SOURCE / "tests" / "studies"


def cli_sweep(study, tmp_path):
    """The CSV of `ictus sweep STUDY --out CSV` as a list of dicts."""
    out = tmp_path / "sweep.csv"
    subprocess.run([os.environ["ICTUS_CLI"], "sweep", str(study), "--out", str(out),
                    "--quiet"], check=True)
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def test_sweep_from_python_equals_the_command_line(tmp_path):
    study = STUDIES / "two_cases.yaml"
    rows = ictus.sweep(str(study), threads=2)
    assert len(rows) == 2 and rows.parameters == ["K"] and rows.metrics == ["u_max"]
    assert rows.ok.all()
    cli = cli_sweep(study, tmp_path)
    for k, row in enumerate(cli):
        assert float(row["K"]) == rows["K"][k]
        # both write the shortest round-trip form: equal bit for bit
        assert float(row["u_max"]) == rows["u_max"][k]


def test_a_failed_case_is_a_row_with_its_message():
    rows = ictus.sweep(str(STUDIES / "impossible_mass.yaml"))
    assert list(rows.ok) == [True, False, True]
    assert "mass" in rows.errors[1]
    assert math.isnan(rows["u_max"][1]) and np.isfinite(rows["u_max"][[0, 2]]).all()


def test_a_study_given_as_text_resolves_its_model_beside_the_named_file():
    text = (STUDIES / "two_cases.yaml").read_text()
    rows = ictus.sweep(str(STUDIES / "from_text.yaml"), text=text, threads=1)
    assert list(rows["K"]) == [800.0, 900.0]


def test_a_bad_study_raises_model_error_with_its_location():
    with pytest.raises(ictus.ModelError) as error:
        ictus.sweep(str(SOURCE / "tests" / "bad_studies" / "unknown_parameter.yaml"))
    assert error.value.file.endswith("unknown_parameter.yaml")
    assert error.value.line > 0 and error.value.column > 0


def test_optimize_without_an_optimize_entry_is_refused():
    with pytest.raises(ictus.ModelError, match="optimize"):
        ictus.optimize(str(STUDIES / "two_cases.yaml"))


def test_optimize_from_python_finds_the_mount_of_the_command_line(tmp_path):
    # the seed-003 mount (examples/studies/suspension_optimize.yaml), fewer evaluations
    study = SOURCE / "examples" / "studies" / "suspension_optimize.yaml"
    text = study.read_text().replace("history: suspension_optimize.history.csv",
                                     f"history: {tmp_path / 'history.csv'}")
    result = ictus.optimize(str(study), text=text)
    assert result.found
    assert set(result.best) == {"K", "C"}
    # on the travel limit, at the most damped mount allowed (docs/studies.md)
    assert result.metrics["travel"] == pytest.approx(0.35, abs=1e-3)
    assert result.best["C"] == pytest.approx(40.0, rel=1e-3)
    assert len(result.history) == result.evaluations
    feasible = result.history.objective[result.history.feasible]
    assert result.objective == pytest.approx(feasible.min())
