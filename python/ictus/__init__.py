"""ictus: dynamics of mechanisms whose structure and contacts change while they move.

The Python face of the C++ engine (docs/python.md)::

    import ictus
    model = ictus.load_model("examples/pendulum.yaml", {"theta0": "20*deg"})
    results = model.run()                  # or ictus.run("examples/pendulum.yaml")
    results["pivot.angle"]                 # NumPy array, one value per sample
    results.t, results.events, results.statistics
    results.to_dataframe()                 # pandas, if installed

    sim = ictus.Simulation(model)          # step by step
    sim.advance_to(0.5)
    sim.channel("pivot.Fz")
    checkpoint = sim.save()
    sim.apply_impulse("bob", linear=[0.1, 0, 0])
    sim.set_enabled("gravity", False)

Parameter studies (docs/studies.md) on the threads of this process::

    rows = ictus.sweep("examples/studies/suspension_sweep.yaml")   # SweepResults
    rows["K"], rows.ok, rows.to_dataframe()
    best = ictus.optimize("examples/studies/suspension_optimize.yaml")

Errors are ictus.ModelError (bad input, with file:line:column) and
ictus.SimulationError (a run that failed, with its time), both ictus.Error.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Optional, Union


from ._core import (
    Action,
    Body,
    Checkpoint,
    CompiledModel,
    Error,
    EventRecord,
    Model,
    ModelError,
    RunStatistics,
    Settings,
    SimulationError,
    integrators,
    joint_types,
    load_model,
    parse_model,
)
from ._core import Simulation as _CoreSimulation
from ._results import Results
from ._studies import OptimizationResults, SweepResults, optimize, sweep

__all__ = [
    "Action",
    "Body",
    "Checkpoint",
    "CompiledModel",
    "Error",
    "EventRecord",
    "Model",
    "ModelError",
    "OptimizationResults",
    "Results",
    "RunStatistics",
    "Settings",
    "Simulation",
    "SimulationError",
    "SweepResults",
    "integrators",
    "joint_types",
    "load_model",
    "parse_model",
    "optimize",
    "run",
    "sweep",
]

Channels = Union[None, str, Iterable[str]]


class Simulation(_CoreSimulation):
    __doc__ = _CoreSimulation.__doc__

    def __init__(self, model: Union[Model, CompiledModel], channels: Channels = None):
        if channels is not None and not isinstance(channels, str):
            channels = list(channels)
        super().__init__(model, channels)
        self._statistics: Optional[RunStatistics] = None

    def run(self) -> Results:
        """Integrates to settings.until (or finishes a run driven by advance_to) and
        returns the Results: the recorded channels as NumPy arrays, the event log and
        the run statistics. Raises SimulationError if the run fails (the samples so
        far stay readable through results())."""
        self._statistics = self._run()
        return self.results()

    def results(self) -> Results:
        """The samples recorded so far, the event log so far, and the statistics once
        run() has returned (None before)."""
        t, values = self._recorded()
        units = {name: self.unit(name) for name in values}
        return Results(t, values, units, list(self.events), self._statistics, self._peaks(),
                       self._energy_audit())


def _model_from(model: Union[str, Model, CompiledModel], overrides: Mapping) -> Union[Model, CompiledModel]:
    if isinstance(model, str):
        return load_model(model, dict(overrides))
    if overrides:
        raise ValueError("overrides apply to a model file; set parameters on a Model instead")
    return model


def run(model: Union[str, Model, CompiledModel], overrides: Optional[Mapping] = None,
        channels: Channels = None) -> Results:
    """run(model, overrides=None, channels=None) -> Results

    Runs a model file (path, with parameter `overrides` as in load_model), a Model or a
    CompiledModel from settings.start to settings.until. `channels`: None for the
    model's outputs, 'all', or names and patterns."""
    return Simulation(_model_from(model, overrides or {}), channels).run()


def _model_run(self: Model, channels: Channels = None) -> Results:
    """run(channels=None) -> Results: runs this model (ictus.run(model, channels=...))."""
    return Simulation(self, channels).run()


Model.run = _model_run

