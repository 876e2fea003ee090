// ictus._core: the C++ engine as a Python extension module. The package
// python/ictus/__init__.py re-exports it; studies (sweep, optimize) are
// wrapped by python/ictus/_studies.py.
#include <pybind11/pybind11.h>

#include "bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() =
      "The compiled core of ictus (C++): models, simulations, errors. Import the package "
      "`ictus`, which re-exports everything here.";
  ictus::python::bind_errors(m);
  ictus::python::bind_model(m);
  ictus::python::bind_simulation(m);
  ictus::python::bind_studies(m);
}
