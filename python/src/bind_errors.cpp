// C++ exceptions to Python exceptions. ModelError keeps the message (with
// its file:line:column prefix) and the location as attributes;
// SimulationError keeps the time.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "ictus/error.h"

namespace py = pybind11;

namespace ictus::python {

namespace {

// Owned by the module (its attributes); the interpreter keeps the module
// alive as long as the translator can run.
PyObject* g_model_error = nullptr;
PyObject* g_simulation_error = nullptr;

void raise_with(PyObject* type, const std::exception& e, const py::dict& attributes) {
  py::object instance = py::reinterpret_borrow<py::object>(type)(py::str(e.what()));
  for (auto item : attributes) instance.attr(item.first) = item.second;
  PyErr_SetObject(type, instance.ptr());
}

}  // namespace

void bind_errors(py::module_& m) {
  static py::exception<std::runtime_error> base(m, "Error", PyExc_RuntimeError);
  base.doc() = "Base class of the errors ictus raises (a RuntimeError).";
  static py::exception<ModelError> model_error(m, "ModelError", base.ptr());
  model_error.doc() =
      "A model that cannot be accepted: a malformed file, impossible parameters, unknown "
      "names, a configuration that cannot be assembled.\n\n"
      "str(e) is the message the command line prints, 'file:line:column: error: element: "
      "what'. Attributes: file, line, column (0 when unknown; file '' for elements built in "
      "Python), location ('file:line:column' or ''), element (e.g. \"joint 'pivot'\"), detail "
      "(the message without the location).";
  static py::exception<SimulationError> simulation_error(m, "SimulationError", base.ptr());
  simulation_error.doc() =
      "A run that could not continue (singular constraints, step size underflow, a NaN). "
      "Attribute: time [s], when it failed.";
  g_model_error = model_error.ptr();
  g_simulation_error = simulation_error.ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ModelError& e) {
      py::dict a;
      a["file"] = e.where().file;
      a["line"] = e.where().line;
      a["column"] = e.where().column;
      a["location"] = e.where().known() ? e.where().str() : std::string();
      a["element"] = e.element();
      a["detail"] = e.detail();
      raise_with(g_model_error, e, a);
    } catch (const SimulationError& e) {
      py::dict a;
      a["time"] = e.time();
      raise_with(g_simulation_error, e, a);
    }
  });
}

}  // namespace ictus::python
