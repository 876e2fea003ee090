"""The rest of the Python API: results as pandas, windowed peaks, help texts, models
built in Python with events and springs, threads, settings."""

import copy
import os
import pydoc
import subprocess
import threading

import numpy as np
import pytest

import ictus
from conftest import SOURCE


def test_results_as_a_dataframe(example):
    pandas = pytest.importorskip("pandas")  # python3-pandas, installed by install-deps.sh
    results = ictus.run(example("pendulum"), channels=["pivot.angle", "pivot.Fz"])
    frame = results.to_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["pivot.angle", "pivot.Fz"]
    assert np.array_equal(frame.index.to_numpy(), results.t)
    assert np.array_equal(frame["pivot.Fz"].to_numpy(), results["pivot.Fz"])
    assert frame.attrs["units"]["pivot.Fz"] == "N"


def test_results_hold_events_statistics_and_units(example):
    results = ictus.run(example("docking"))
    assert results.statistics.steps > 0 and results.statistics.end_time == 10.0
    assert results.statistics.as_dict()["steps"] == results.statistics.steps
    latch = results.events_of("switch", "latch")
    assert len(latch) == 1 and 1.9 < latch[0].t < 2.1
    assert results.events_of("impact") and results.statistics.impacts >= 1
    assert set(results.as_dict()) == {"t", *results.channels}
    with pytest.raises(KeyError, match="was not recorded"):
        results["ship.nonsense"]
    assert all(results.units[c] for c in results.channels if c.startswith("ship.v"))


def test_results_carry_the_energy_audit_of_the_command_line(example):
    passed = ictus.run(example("pendulum")).energy_audit
    assert passed["passed"] and passed["tolerance"] == 1e-3
    assert passed["relative"] < 1e-9 and passed["exceeded_between"] is None
    assert passed["dissipation_fall"] == 0.0 and passed["fell_between"] is None
    # Moreau-Jean books its own energy as dissipation: the balance closes, the
    # dissipation falls (docs/cli.md, the energy audit)
    scheme = str(SOURCE / "tests" / "cli" / "models" / "audit_scheme_energy.yaml")
    failed = ictus.run(scheme).energy_audit
    assert not failed["passed"] and failed["exceeded_between"] is None
    assert failed["dissipation_fall_relative"] > 2e-3
    fell_from, fell_to = failed["fell_between"]
    assert 0.0 < fell_from < fell_to < 10.0


def cli_output(model, tmp_path):
    out = subprocess.run([os.environ["ICTUS_CLI"], "run", model, "--out", str(tmp_path / "out"),
                          "--no-progress"], check=True, capture_output=True, text=True)
    return out.stdout


def test_windowed_peaks_are_those_of_the_command_line(example, tmp_path):
    # seed 003's suspension: the in-pulse peak acceleration (issue 16) and the others
    results = ictus.run(example("suspension"))
    peaks = {p["label"]: p for p in results.peaks}
    assert set(peaks) == {"u_max", "v_max", "a_max (max |a|)", "a_max in the pulse"}
    assert all(p["found"] for p in peaks.values())
    in_pulse = peaks["a_max in the pulse"]
    assert in_pulse["channel"] == "block.az" and in_pulse["unit"] == "m/s^2"
    assert in_pulse["t"] <= in_pulse["to"]
    # the located peak is at least as extreme as every sample in its window
    window = (results.t >= in_pulse["from"]) & (results.t <= in_pulse["to"])
    assert in_pulse["value"] <= np.min(results["block.az"][window]) + 1e-12
    # the command line prints the same peaks in its table (8 significant digits)
    printed = cli_output(example("suspension"), tmp_path)
    for label, peak in peaks.items():
        line = next(l for l in printed.splitlines() if l.startswith(label + "  "))
        assert f"{peak['value']:.8g}" in line.split(), (label, line)


def test_help_of_the_model_class_describes_its_methods():
    text = pydoc.render_doc(ictus.Model, renderer=pydoc.plaintext)
    for words in ("load_model", "add_joint", "world coordinates", "add_event", "settings",
                  "initial_angle", "ModelError"):
        assert words in text, words
    for cls in (ictus.Simulation, ictus.Results, ictus.Body, ictus.Action, ictus.Settings,
                ictus.ModelError, ictus.SimulationError, ictus.Checkpoint, ictus.EventRecord,
                ictus.RunStatistics, ictus.CompiledModel):
        assert cls.__doc__ and len(cls.__doc__) > 40, cls
    for function in (ictus.load_model, ictus.parse_model, ictus.run):
        assert function.__doc__ and len(function.__doc__) > 60, function


def bouncing_mass(restitution):
    """A mass on a vertical slider falling into a latch (a fixed joint that captures the
    mass where it is) that an event switches on halfway down (add_event, Action)."""
    model = ictus.Model("drop")
    model.set_gravity([0, 0, -9.81])
    model.add_body(ictus.Body("mass", mass=2.0, inertia=[0.1, 0.1, 0.1], position=[0, 0, 1]))
    model.add_joint("guide", "prismatic", "ground", "mass", at=[0, 0, 1], axis=[0, 0, 1],
                    initial_position=1.0)
    model.add_joint("stop", "fixed", "ground", "mass", at=[0, 0, 1], restitution=restitution,
                    capture=True)
    model.set_initially_enabled("stop", False)
    model.add_event("touch", "guide.x < 0.5", on_true=[ictus.Action.enable("stop")], once=True)
    model.settings.until = 1.0
    model.settings.output_step = 0.01
    return model


def test_a_latch_built_in_python_closes_plastically():
    results = bouncing_mass(0.0).run(channels=["guide.x", "guide.v", "energy.impacts"])
    touch = results.events_of("event", "touch")
    assert len(touch) == 1
    # free fall from x = 1 to 0.5: t = sqrt(2 * 0.5 / g), v = -sqrt(2 g 0.5)
    assert touch[0].t == pytest.approx(np.sqrt(1.0 / 9.81), rel=1e-8)
    assert results.events_of("impact")
    after = results.t > touch[0].t + 1e-9
    assert np.max(np.abs(results["guide.v"][after])) < 1e-8  # held by the capture latch
    assert results["energy.impacts"][-1] == pytest.approx(0.5 * 2.0 * 9.81, rel=1e-6)


def test_springs_and_loads_built_in_python():
    # a 2 kg mass on a prismatic guide, spring k = 800 N/m from its start point:
    # a constant load F = 40 N moves it to F/k = 0.05 m and back, period 2 pi sqrt(m/k)
    model = ictus.Model("oscillator")
    model.add_body(ictus.Body("m", mass=2.0, inertia=[1, 1, 1]))
    model.add_joint("guide", "prismatic", "ground", "m", at=[0, 0, 0], axis=[1, 0, 0])
    model.add_spring_damper("spring", between=["ground", "m"], points=[[-1, 0, 0], [0, 0, 0]],
                            stiffness=800.0)
    model.add_force("push", on="m", direction=[1, 0, 0], value="F")
    model.set_parameter("F", 40.0)
    model.settings.until = np.pi * np.sqrt(2.0 / 800.0)  # half a period
    model.settings.rtol, model.settings.atol = 1e-10, 1e-12
    results = model.run(channels=["guide.x", "spring.force"])
    assert results["guide.x"][-1] == pytest.approx(0.1, abs=1e-8)
    assert results["spring.force"][-1] == pytest.approx(-80.0, abs=1e-5) or \
        results["spring.force"][-1] == pytest.approx(80.0, abs=1e-5)


def test_joint_spring_damper_and_torque_built_in_python():
    model = ictus.Model("torsion")
    model.add_body(ictus.Body("disk", mass=1.0, inertia=[0.5, 0.5, 0.5]))
    model.add_joint("axle", "revolute", "ground", "disk", at=[0, 0, 0], axis=[0, 0, 1])
    model.add_joint_spring_damper("twist", joint="axle", stiffness=2.0)
    model.add_torque("motor", on="disk", direction=[0, 0, 1], value=1)  # a number
    model.settings.until = np.pi * np.sqrt(0.5 / 2.0)  # half a period: 2 T/k
    model.settings.rtol, model.settings.atol = 1e-10, 1e-12
    results = model.run(channels=["axle.angle"])
    assert results["axle.angle"][-1] == pytest.approx(1.0, abs=1e-8)


def test_settings_follow_the_command_line_rules(example):
    model = ictus.load_model(example("pendulum"))
    assert model.settings.integrator == "dopri5" and model.settings.rtol == 1e-10
    model.settings.integrator = "rk4"  # the file's rtol does not bind rk4
    model.settings.step = 1e-3
    model.settings.until = 0.1
    assert model.run().statistics.steps == 100
    model.settings.rtol = 1e-6  # given explicitly: rk4 does not read it
    with pytest.raises(ictus.ModelError, match="'rtol' is an option of"):
        model.run()
    assert "rk4" in ictus.integrators() and "revolute" in ictus.joint_types()


def test_models_are_copied_not_shared(example):
    model = ictus.load_model(example("pendulum"))
    other = copy.copy(model)
    other.settings.until = 1.0
    assert model.settings.until == 10.0
    assert model.parameters["L"] == 1.0 and "bob" in model.bodies and "pivot" in model.joints
    assert "gravity" in model.forces and repr(model).startswith("<ictus.Model")


def test_threads_share_a_compiled_model(example):
    compiled = ictus.CompiledModel(ictus.load_model(example("slider_crank")))
    serial = ictus.Simulation(compiled, ["cylinder.x", "crank_pin.Fx"]).run()
    outputs = [None, None]

    def work(k):
        outputs[k] = ictus.Simulation(compiled, ["cylinder.x", "crank_pin.Fx"]).run()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for out in outputs:
        assert np.array_equal(out["cylinder.x"], serial["cylinder.x"])
        assert np.array_equal(out["crank_pin.Fx"], serial["crank_pin.Fx"])
