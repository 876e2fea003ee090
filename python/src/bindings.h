// The Python module ictus._core (pybind11): one function per part of the
// C++ API, called by module.cpp. The pure-Python package python/ictus/
// wraps it (results as NumPy arrays, pandas, docstrings of the package).
#pragma once

#include <pybind11/pybind11.h>

namespace ictus::python {

/// ictus.Error, ictus.ModelError, ictus.SimulationError and the translation
/// of the C++ exceptions into them.
void bind_errors(pybind11::module_& m);
/// Model, Body, Action, Settings; load_model, parse_model.
void bind_model(pybind11::module_& m);
/// Simulation, Checkpoint, EventRecord, RunStatistics.
void bind_simulation(pybind11::module_& m);
/// CaseResult; _sweep and _optimize (the study runner of `ictus sweep` and
/// `ictus optimize`), wrapped by python/ictus/_studies.py.
void bind_studies(pybind11::module_& m);

}  // namespace ictus::python
