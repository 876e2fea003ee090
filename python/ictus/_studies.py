"""Parameter studies from Python: ictus.sweep and ictus.optimize (docs/studies.md).

The same study files as `ictus sweep STUDY.yaml` and `ictus optimize STUDY.yaml`, run on
the threads of this process (one parsed model shared where only formula parameters vary).
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional

import numpy as np

from . import _core


class SweepResults:
    """The rows of a sweep as NumPy columns, in the cases' order.

    results["k"] / results["max_accel"]: a parameter's or a metric's column (float;
    NaN where a case failed or an event never fired); results.ok (bool array),
    results.audit_passed (bool array: the energy audit of each case that ran; a case
    whose audit failed keeps its metrics), results.errors (the message of each failed
    case or the warning of a failed audit, '' otherwise), results.wall_seconds,
    results.parameters / results.metrics (names in the study's order), results.rows
    (the CaseResult records), len(results), results.to_dataframe() (pandas)."""

    def __init__(self, parameters: List[str], metrics: List[str], rows: list):
        self.parameters = list(parameters)
        self.metrics = list(metrics)
        self.rows = list(rows)
        self.case = np.array([r.index for r in rows], dtype=int)
        self.ok = np.array([r.ok for r in rows], dtype=bool)
        self.audit_passed = np.array([r.audit_passed for r in rows], dtype=bool)
        self.errors = [r.error for r in rows]
        self.wall_seconds = np.array([r.wall_seconds for r in rows], dtype=float)
        self._columns: Dict[str, np.ndarray] = {}
        for k, name in enumerate(self.parameters):
            self._columns[name] = np.array([r.parameters[k] for r in rows], dtype=float)
        for k, name in enumerate(self.metrics):
            self._columns[name] = np.array(
                [r.metrics[k] if r.ok and k < len(r.metrics) else math.nan for r in rows],
                dtype=float)

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._columns[name]
        except KeyError:
            raise KeyError(f"no column '{name}'; the study has parameters {self.parameters} "
                           f"and metrics {self.metrics}") from None

    def __len__(self) -> int:
        return len(self.rows)

    def keys(self) -> List[str]:
        return list(self._columns)

    def to_dataframe(self):
        """A pandas DataFrame with one row per case (needs pandas)."""
        import pandas as pd  # optional dependency

        data = {"case": self.case}
        data.update(self._columns)
        data.update({"ok": self.ok, "audit_passed": self.audit_passed, "error": self.errors,
                     "wall_s": self.wall_seconds})
        return pd.DataFrame(data)

    def __repr__(self) -> str:
        suspect = int((self.ok & ~self.audit_passed).sum())
        audit = f", {suspect} failed the energy audit" if suspect else ""
        return (f"<SweepResults {len(self)} cases ({int(self.ok.sum())} ok{audit}), "
                f"parameters {self.parameters}, metrics {self.metrics}>")


def sweep(study: str, threads: int = 0, text: Optional[str] = None) -> SweepResults:
    """sweep(study, threads=0, text=None) -> SweepResults

    Runs every case of a study file (path) on `threads` threads (0: every core) and returns
    the rows; a case that fails is a row with ok False and its message, the others go on.
    `text`: the study's YAML given directly (`study` then names it in messages and is the
    directory its model path is resolved against). Raises ModelError (file:line:column)
    for a bad study. Unlike `ictus sweep`, writes no CSV and keeps no journal."""
    parameters, metrics, rows = _core._sweep(study, text or "", threads)
    return SweepResults(parameters, metrics, rows)


class OptimizationResults:
    """What ictus.optimize found: best (parameter -> value), objective, metrics (metric ->
    value at the best point), found (a feasible evaluation exists), evaluations, stop_reason
    (NLopt's) and history (SweepResults of every evaluation, with .objective and .feasible
    arrays)."""

    def __init__(self, parameters, metrics, best, objective, best_metrics, found, evaluations,
                 stop_reason, history):
        self.best = dict(zip(parameters, best)) if found else {}
        self.objective = objective
        self.metrics = dict(zip(metrics, best_metrics)) if found else {}
        self.found = found
        self.evaluations = evaluations
        self.stop_reason = stop_reason
        self.history = SweepResults(parameters, metrics, [e[1] for e in history])
        self.history.number = np.array([e[0] for e in history], dtype=int)
        self.history.objective = np.array([e[2] for e in history], dtype=float)
        self.history.feasible = np.array([e[3] for e in history], dtype=bool)

    def __repr__(self) -> str:
        return (f"<OptimizationResults best {self.best} objective {self.objective:.9g} "
                f"after {self.evaluations} evaluations ({self.stop_reason})>")


def optimize(study: str, threads: int = 0, text: Optional[str] = None) -> OptimizationResults:
    """optimize(study, threads=0, text=None) -> OptimizationResults

    Minimises the objective of the study's `optimize:` entry over the parameter ranges under
    its constraints (NLopt; each evaluation a run), the independent starts of a multi-start
    on `threads` threads (0: every core). Raises ModelError for a bad study or one without
    `optimize:`."""
    return OptimizationResults(*_core._optimize(study, text or "", threads))
