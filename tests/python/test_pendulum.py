"""The pendulum's period from Python equals the command line's (examples/pendulum.yaml),
and both equal the exact period of a 30 degree swing."""

import csv
import math

import numpy as np

import ictus


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, values = rows[0], np.array(rows[1:], dtype=float)
    return {name: values[:, k] for k, name in enumerate(header)}


def upward_crossings(t, angle, omega):
    """Times where the angle crosses zero upwards, each located on the cubic Hermite
    interpolant of (angle, omega) between the samples around it (bisection)."""
    times = []
    for k in np.nonzero((angle[:-1] < 0.0) & (angle[1:] >= 0.0))[0]:
        t0, t1 = t[k], t[k + 1]
        h = t1 - t0
        if h <= 0.0:
            continue

        def value(s):
            u = (s - t0) / h
            h00, h10 = 2 * u**3 - 3 * u**2 + 1, u**3 - 2 * u**2 + u
            h01, h11 = -2 * u**3 + 3 * u**2, u**3 - u**2
            return h00 * angle[k] + h10 * h * omega[k] + h01 * angle[k + 1] + h11 * h * omega[k + 1]

        lo, hi = t0, t1
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if value(mid) < 0.0 else (lo, mid)
        times.append(0.5 * (lo + hi))
    return np.array(times)


def period(t, angle, omega):
    crossings = upward_crossings(t, angle, omega)
    assert len(crossings) >= 3
    return float(np.mean(np.diff(crossings)))


def exact_period(theta0):
    """4 K(sin^2(theta0/2)) sqrt(L_eq/g), K by the arithmetic-geometric mean; L_eq =
    (m L^2 + J)/(m L) = 1.0001 m with the bob's own inertia (docs/tutorial.md)."""
    a, b = 1.0, np.cos(theta0 / 2.0)  # sqrt(1 - m)
    for _ in range(40):
        a, b = 0.5 * (a + b), np.sqrt(a * b)
    return 4.0 * (np.pi / (2.0 * a)) * np.sqrt(1.0001 / 9.81)


EXACT_PERIOD = exact_period(np.radians(30.0))  # 2.041091936 s


def test_period_from_python_equals_the_command_line(example, cli):
    results = ictus.run(example("pendulum"))
    from_python = period(results.t, results["pivot.angle"], results["pivot.omega"])

    csv_values = read_csv(cli(example("pendulum")) / "results.csv")
    from_cli = period(csv_values["t"], csv_values["pivot.angle"], csv_values["pivot.omega"])

    # the same engine on the same model: the same samples, bit for bit (results.csv
    # writes the shortest text that reads back as the same double)
    assert np.array_equal(results.t, csv_values["t"])
    for name in results.channels:
        assert np.array_equal(results[name], csv_values[name]), name
    assert from_python == from_cli
    # Hermite interpolation between samples 0.01 s apart: about 1e-8 s
    assert abs(from_python - EXACT_PERIOD) < 1e-6


def test_period_with_an_override_follows_the_amplitude(example):
    results = ictus.run(example("pendulum"), {"theta0": "10*deg"})
    assert abs(period(results.t, results["pivot.angle"], results["pivot.omega"]) -
               exact_period(np.radians(10.0))) < 1e-6


def test_a_pendulum_built_in_python_runs_like_the_file(example):
    # math.sin, the C library's, as the loader's formulas use (NumPy's own
    # vectorised sin may differ in the last bit)
    theta0 = 30.0 * (math.pi / 180.0)  # the file's 30*deg
    model = ictus.Model("simple pendulum")
    model.set_gravity([0.0, 0.0, -9.81])
    model.add_body(ictus.Body("bob", mass=1.0, inertia=[1e-4, 1e-4, 1e-4],
                              position=[math.sin(theta0), 0.0, -math.cos(theta0)]))
    model.add_joint("pivot", "revolute", "ground", "bob", at=[0, 0, 0], axis=[0, -1, 0],
                    reference=[0, 0, -1], initial_angle=theta0)
    s = model.settings
    s.until, s.output_step, s.integrator, s.rtol, s.atol = 10.0, 0.01, "dopri5", 1e-10, 1e-12
    built = ictus.Simulation(model, ["pivot.angle", "pivot.omega"]).run()
    loaded = ictus.run(example("pendulum"), channels=["pivot.angle", "pivot.omega"])
    assert np.array_equal(built["pivot.angle"], loaded["pivot.angle"])
    assert np.array_equal(built["pivot.omega"], loaded["pivot.omega"])
