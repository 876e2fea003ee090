"""Driving a run step by step: advance_to, channels, save and restore, switching an
element and applying an impulse from Python."""

import numpy as np
import pytest

import ictus


def test_advance_to_and_restore_reproduce_a_straight_run(example):
    model = ictus.load_model(example("docking"))  # the latch closes at about 2 s
    straight = ictus.Simulation(model, "all").run()

    stepped = ictus.Simulation(model, "all")
    checkpoints = []
    for t in (0.5, 1.0, 1.5, 3.0):
        assert stepped.advance_to(t)
        assert stepped.time == t
        stepped.channel("energy.total")  # reading a channel changes nothing
        checkpoints.append(stepped.save())
    in_place = stepped.run()

    copy = ictus.Simulation(model, "all")
    copy.restore(checkpoints[-1])
    continued = copy.run()

    # continued from the checkpoint: the in-place run's samples after t = 3, bit for bit
    tail = in_place.t > 3.0
    assert np.array_equal(continued.t, in_place.t[tail])
    for name in in_place.channels:
        assert np.array_equal(continued[name], in_place[name][tail]), name
    assert np.array_equal(copy.state, stepped.state)
    assert [e.as_dict() for e in copy.events] == [e.as_dict() for e in stepped.events]

    # ... and the same motion as the straight run: the integrator restarted at each
    # stop, so the steps differ, within the tolerance of the run
    # (the samples at the latch's closure move with its located time)
    assert len(in_place.t) == len(straight.t)
    assert np.max(np.abs(in_place.t - straight.t)) < 1e-6
    stepped_log = [e for e in in_place.events if e.kind != "warning"]
    straight_log = [e for e in straight.events if e.kind != "warning"]
    assert [(e.kind, e.name) for e in stepped_log] == [(e.kind, e.name) for e in straight_log]
    assert [e.t for e in stepped_log] == pytest.approx([e.t for e in straight_log], abs=1e-6)
    for name in ("ship.x", "ship.vx", "hinge_left.angle", "latch.Fx"):
        scale = max(1.0, np.max(np.abs(straight[name])))
        assert np.max(np.abs(in_place[name] - straight[name])) < 1e-6 * scale, name


def test_a_fixed_step_run_in_pieces_is_the_straight_run_bit_for_bit(example):
    # rk4 with a step that divides the stops: restarting changes no step
    model = ictus.load_model(example("pendulum"))
    model.settings.integrator = "rk4"
    model.settings.step = 1.0 / 1024
    model.settings.until = 2.0
    straight = ictus.Simulation(model).run()
    stepped = ictus.Simulation(model)
    for t in (0.25, 0.5, 1.0):
        stepped.advance_to(t)
    checkpoint = stepped.save()
    copy = ictus.Simulation(model)
    copy.restore(checkpoint)
    copy.run()
    pieces = stepped.run()
    for name in straight.channels:
        assert np.array_equal(pieces[name], straight[name]), name
    assert np.array_equal(copy.state, stepped.state)


def test_channel_reads_any_channel_at_the_current_state(example):
    sim = ictus.Simulation(ictus.load_model(example("pendulum")), ["pivot.angle"])
    with pytest.raises(RuntimeError):
        sim.channel("pivot.angle")  # not started
    sim.advance_to(0.0)  # the start: assembled at t0
    assert sim.channel("pivot.angle") == pytest.approx(np.radians(30.0), abs=1e-12)
    # at release the pivot carries m g cos^2(theta0) vertically (docs/tutorial.md)
    assert sim.channel("pivot.Fz") == pytest.approx(9.81 * 0.75, rel=1e-3)
    with pytest.raises(KeyError):
        sim.channel("pivot.nonsense")
    assert "pivot.Fz" in sim.channels and sim.unit("pivot.Fz") == "N"


def test_an_impulse_from_python_changes_the_momentum_by_the_impulse(example):
    # the docking example's ship drifts freely before the latch: an impulse of
    # 2 N s along x changes its momentum by exactly that
    model = ictus.load_model(example("docking"))
    sim = ictus.Simulation(model, ["ship.vx"])
    sim.advance_to(1.0)
    mass = model.body("ship").mass
    before = sim.channel("ship.vx")
    assert sim.apply_impulse("ship", linear=[2.0, 0.0, 0.0])
    after = sim.channel("ship.vx")
    assert mass * (after - before) == pytest.approx(2.0, rel=1e-12)
    impact = [e for e in sim.events if e.kind == "impact"]
    assert impact and impact[-1].t == 1.0 and "external impulse" in impact[-1].detail
    results = sim.run()
    # the samples just before and just after the impulse, at t = 1
    at_one = results["ship.vx"][results.t == 1.0]
    assert at_one[0] == pytest.approx(before) and at_one[-1] == pytest.approx(after)
    with pytest.raises(ValueError):
        ictus.Simulation(model).apply_impulse("no_such_body", linear=[1, 0, 0])


def test_switching_gravity_off_from_python_stops_the_pendulum_accelerating(example):
    sim = ictus.Simulation(ictus.load_model(example("pendulum")), ["pivot.omega"])
    sim.advance_to(0.3)
    assert sim.enabled("gravity")
    omega = sim.channel("pivot.omega")
    sim.set_enabled("gravity", False)
    assert not sim.enabled("gravity")
    assert [e.name for e in sim.events if e.kind == "switch"] == ["gravity"]
    sim.advance_to(1.0)
    # no load: the bob keeps its angular rate (the energy audit keeps the books)
    assert sim.channel("pivot.omega") == pytest.approx(omega, rel=1e-8)
    assert abs(sim.channel("energy.balance")) < 1e-8
    with pytest.raises(ValueError):
        sim.set_enabled("no_such_element", True)


def test_a_stop_action_ends_the_run(example):
    sim = ictus.Simulation(ictus.load_model(example("pendulum")))
    sim.advance_to(0.5)
    assert not sim.apply([ictus.Action.stop()], name="controller")
    assert not sim.advance_to(1.0)
    results = sim.run()
    assert results.statistics.stopped_by_event
    assert results.statistics.end_time == 0.5
    assert any(e.kind == "event" and e.name == "controller" for e in results.events)


def test_a_run_advanced_to_the_end_cannot_be_saved_after_run(example):
    sim = ictus.Simulation(ictus.load_model(example("pendulum")))
    with pytest.raises(RuntimeError):
        sim.save()  # not started
    sim.run()
    with pytest.raises(RuntimeError):
        sim.advance_to(1.0)


def test_ctrl_c_stops_a_run_and_raises_keyboard_interrupt(example):
    # the engine integrates without the GIL; Ctrl-C (SIGINT) still stops it
    # within about 50 ms of wall time, not when the run would have ended
    import os
    import signal
    import threading
    import time

    model = ictus.load_model(example("pendulum"))
    s = model.settings
    s.until, s.rtol, s.atol = 1e5, 1e-12, 1e-14  # minutes of work
    sim = ictus.Simulation(model, ["pivot.angle"])
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sim.run()
    assert time.monotonic() - started < 5.0
    timer.cancel()
    recorded = sim.results()  # the samples up to the interruption stay readable
    assert 0 < len(recorded) and recorded.t[-1] < 1e5
    assert any(e.kind == "interrupted" for e in recorded.events)
