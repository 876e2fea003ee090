"""Results of a run: recorded channels as NumPy arrays, the event log, statistics."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional

import numpy as np


class Results:
    """The samples of a run, keyed by channel.

    results["pivot.angle"] is a NumPy array with one value per sample; results.t the
    sample times [s] (on the output grid, plus the samples just before and just after
    each event, so a time can appear twice). results.channels lists the recorded
    channels, results.units their SI units, results.events the event log (a list of
    EventRecord: t, kind, name, detail), results.statistics the RunStatistics (None
    for a run that has not finished), results.peaks the model's windowed peaks
    (`summary: peaks:`, located on the integrator's dense output as in the command
    line's summary): dicts with label, channel, unit, found, value, t, from, to.
    results.energy_audit the command line's energy audit of the samples (run.json's
    keys: passed, tolerance, error and relative of |energy.balance|, dissipation_fall
    and dissipation_fall_relative, and exceeded_between / fell_between, (from, to) in s
    where a check failed, else None). results.to_dataframe() gives a pandas DataFrame
    indexed by t, if pandas is installed.
    """

    def __init__(self, t: np.ndarray, values: Dict[str, np.ndarray], units: Dict[str, str],
                 events: list, statistics, peaks: Optional[list] = None,
                 energy_audit: Optional[dict] = None) -> None:
        self.t = t
        self._values = dict(values)
        self.units = dict(units)
        self.events = events
        self.statistics = statistics
        self.peaks = list(peaks or [])
        self.energy_audit = dict(energy_audit or {})

    @property
    def channels(self) -> List[str]:
        """Names of the recorded channels, in recording order."""
        return list(self._values)

    def __getitem__(self, name: str) -> np.ndarray:
        if name == "t":
            return self.t
        try:
            return self._values[name]
        except KeyError:
            raise KeyError(f"channel '{name}' was not recorded; recorded: "
                           f"{', '.join(self._values)}") from None

    def __contains__(self, name: object) -> bool:
        return name == "t" or name in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self.t)

    def as_dict(self) -> Dict[str, np.ndarray]:
        """{'t': times, channel: values, ...}"""
        return {"t": self.t, **self._values}

    def events_of(self, kind: str, name: Optional[str] = None) -> list:
        """The event records of one kind (and element or event name, if given)."""
        return [e for e in self.events if e.kind == kind and (name is None or e.name == name)]

    def to_dataframe(self):
        """A pandas DataFrame with a column per channel, indexed by t (ImportError when
        pandas is not installed: apt-get install python3-pandas)."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Results.to_dataframe() needs pandas "
                              "(Debian: apt-get install python3-pandas)") from e
        frame = pd.DataFrame(self._values, index=pd.Index(self.t, name="t"))
        frame.attrs["units"] = dict(self.units)
        return frame

    def __repr__(self) -> str:
        return (f"<ictus.Results: {len(self.t)} samples of {len(self._values)} channels, "
                f"{len(self.events)} events>")
