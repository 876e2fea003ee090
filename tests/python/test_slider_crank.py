"""A slider-crank built in Python equals examples/slider_crank.yaml's run bit for bit:
the same objects from the same numbers give the same samples and the same events."""

import math

import numpy as np

import ictus


def slider_crank():
    """examples/slider_crank.yaml, written with the Python API."""
    r, l, w, th0, P = 0.1, 0.35, 2 * math.pi, 30 * (math.pi / 180.0), 100.0
    g = 9.81
    model = ictus.Model("slider-crank")
    for name, value in dict(r=r, l=l, w=w, th0=th0, P=P, m_crank=2.0, m_rod=1.0,
                            m_piston=0.5, g=g).items():
        model.set_parameter(name, value)
    model.set_gravity([0, -g, 0])
    q = math.sqrt(l**2 - (r * math.sin(th0))**2)  # crank pin to wrist pin, along x
    x_piston = r * math.cos(th0) + q
    model.add_body(ictus.Body("crank", mass=2.0, inertia=[2e-3, 2e-3, 4e-3],
                              position=[r / 2 * math.cos(th0), r / 2 * math.sin(th0), 0]))
    model.add_body(ictus.Body("rod", mass=1.0, inertia=[1e-3, 1e-2, 1e-2],
                              position=[r * math.cos(th0) + q / 2, r * math.sin(th0) / 2, 0]))
    model.add_body(ictus.Body("piston", mass=0.5, inertia=[1e-3, 1e-3, 1e-3],
                              position=[x_piston, 0, 0]))
    z = [0, 0, 1]
    model.add_joint("main_bearing", "revolute", "ground", "crank", at=[0, 0, 0], axis=z,
                    initial_angle=th0)
    model.add_joint("crank_pin", "revolute", "crank", "rod",
                    at=[r * math.cos(th0), r * math.sin(th0), 0], axis=z)
    model.add_joint("wrist_pin", "revolute", "rod", "piston", at=[x_piston, 0, 0], axis=z)
    model.add_joint("cylinder", "prismatic", "ground", "piston", at=[x_piston, 0, 0],
                    axis=[1, 0, 0], initial_position=x_piston)
    model.add_driver("motor", "main_bearing", angle="th0 + w*t", rate="w", acceleration="0")
    model.add_force("gas_load", on="piston", direction=[-1, 0, 0], value="P")
    s = model.settings
    s.until, s.output_step, s.rtol, s.atol = 10.0, 0.01, 1e-9, 1e-11
    s.outputs = ["main_bearing.angle", "cylinder.x", "cylinder.v", "piston.ax", "motor.load",
                 "motor.power", "cylinder.Fy", "main_bearing.Fx", "main_bearing.Fy",
                 "crank_pin.F*", "energy.*", "system.violation"]
    return model


def test_python_built_slider_crank_equals_the_model_file_bit_for_bit(example):
    built = ictus.run(slider_crank(), channels="all")
    loaded = ictus.run(example("slider_crank"), channels="all")
    assert built.channels == loaded.channels
    assert len(built) == len(loaded) > 900
    assert np.array_equal(built.t, loaded.t)
    differing = [name for name in built.channels
                 if not np.array_equal(built[name], loaded[name], equal_nan=True)]
    assert differing == []
    assert [e.as_dict() for e in built.events] == [e.as_dict() for e in loaded.events]
    assert built.statistics.as_dict() | {"wall_seconds": 0} == \
        loaded.statistics.as_dict() | {"wall_seconds": 0}


def test_default_channels_are_the_model_outputs(example):
    built = ictus.run(slider_crank())
    loaded = ictus.run(example("slider_crank"))
    assert built.channels == loaded.channels
    assert "crank_pin.Fx" in built.channels and "energy.balance" in built.channels


def test_piston_follows_the_closed_form(example):
    results = ictus.run(example("slider_crank"), {"w": "4*pi"})
    r, l, w, th0 = 0.1, 0.35, 4 * np.pi, np.radians(30.0)
    th = th0 + w * results.t
    x = r * np.cos(th) + np.sqrt(l**2 - (r * np.sin(th))**2)
    assert np.max(np.abs(results["cylinder.x"] - x)) < 1e-9
    assert results.units["cylinder.x"] == "m"
