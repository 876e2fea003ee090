// ictus.sweep and ictus.optimize (issue 11): the study runner of `ictus sweep`
// and `ictus optimize` (include/ictus/study.h) on the threads of this process.
// The runs release the GIL; the package (python/ictus/_studies.py) turns the
// rows into NumPy columns.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "ictus/study.h"

namespace py = pybind11;

namespace ictus::python {
namespace {

study::Study study_from(const std::string& path, const std::string& text) {
  return text.empty() ? study::load_study(path) : study::parse_study(text, path);
}

std::vector<std::string> parameter_names(const study::Study& s) {
  std::vector<std::string> names;
  for (const study::StudyParameter& p : s.parameters) names.push_back(p.name);
  return names;
}

std::vector<std::string> metric_names(const study::Study& s) {
  std::vector<std::string> names;
  for (const study::Metric& m : s.metrics) names.push_back(m.name);
  return names;
}

}  // namespace

void bind_studies(py::module_& m) {
  py::class_<study::CaseResult>(m, "CaseResult",
                                "One case of a study: its parameters and metrics (in the "
                                "order of the study file), whether it ran, why not, its wall "
                                "time.")
      .def_readonly("index", &study::CaseResult::index)
      .def_readonly("parameters", &study::CaseResult::parameters)
      .def_readonly("metrics", &study::CaseResult::metrics)
      .def_readonly("ok", &study::CaseResult::ok)
      .def_readonly("audit_passed", &study::CaseResult::audit_passed)
      .def_readonly("error", &study::CaseResult::error)
      .def_readonly("wall_seconds", &study::CaseResult::wall_seconds);

  m.def(
      "_sweep",
      [](const std::string& path, const std::string& text, int threads) {
        const study::Study s = study_from(path, text);
        const study::StudyRunner runner(s);
        const std::vector<study::Case> cases = study::study_cases(s);
        study::SweepOptions options;
        options.threads = threads;
        std::vector<study::CaseResult> rows;
        {
          py::gil_scoped_release release;
          rows = study::run_cases(runner, cases, options);
        }
        return py::make_tuple(parameter_names(s), metric_names(s), rows);
      },
      py::arg("path"), py::arg("text") = "", py::arg("threads") = 0);

  m.def(
      "_optimize",
      [](const std::string& path, const std::string& text, int threads) {
        const study::Study s = study_from(path, text);
        if (!s.optimize.given)
          throw ModelError(SourceLocation{s.source, 0, 0}, "study",
                           "has no 'optimize:' entry: nothing to minimise");
        const study::StudyRunner runner(s);
        std::vector<study::Evaluation> history;
        study::OptimizationResult result;
        {
          py::gil_scoped_release release;
          result = study::optimize_study(runner, threads, [&](const study::Evaluation& e) {
            history.push_back(e);  // called under the runner's lock
          });
        }
        py::list evaluations;
        for (const study::Evaluation& e : history)
          evaluations.append(py::make_tuple(e.number, e.result, e.objective, e.feasible));
        return py::make_tuple(parameter_names(s), metric_names(s), result.best, result.objective,
                              result.metrics, result.found, result.evaluations, result.stop_reason,
                              evaluations);
      },
      py::arg("path"), py::arg("text") = "", py::arg("threads") = 0);
}

}  // namespace ictus::python
