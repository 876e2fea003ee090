"""Python-driven runs against a shell loop of `ictus run` (docs/benchmarks.md).

CPU time per run of a model, four ways:
  cli        `ictus run MODEL --quiet --out DIR` in a loop (the child processes' CPU time:
             start, parse, compile, run, write results.csv and events.csv)
  load+run   ictus.run(path): the file parsed and the model compiled in every run
  model      ictus.Simulation(model).run(): the Model loaded once, compiled per run
  compiled   ictus.Simulation(compiled).run(): one CompiledModel shared by the runs

  PYTHONPATH=build/release/python /usr/bin/python3 bench/python_runs.py \
      --cli build/release/apps/ictus [--runs 50] [MODEL ...]
"""

import argparse
import os
import resource
import subprocess
import tempfile
import time

import ictus


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def per_run(function, runs, clock=cpu_self):
    start = clock()
    for _ in range(runs):
        function()
    return (clock() - start) / runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True, help="the ictus executable")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("models", nargs="*",
                        default=["examples/suspension.yaml", "examples/pendulum.yaml",
                                 "examples/slider_crank.yaml"])
    args = parser.parse_args()
    print(f"{'model':<28} {'cli':>10} {'load+run':>10} {'model':>10} {'compiled':>10}"
          "   [ms CPU per run]")
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "out")
        for path in args.models:
            model = ictus.load_model(path)
            compiled = ictus.CompiledModel(model)
            t_cli = per_run(lambda: subprocess.run(
                [args.cli, "run", path, "--quiet", "--out", out], check=True),
                args.runs, cpu_children)
            t_load = per_run(lambda: ictus.run(path), args.runs)
            t_model = per_run(lambda: ictus.Simulation(model).run(), args.runs)
            t_compiled = per_run(lambda: ictus.Simulation(compiled).run(), args.runs)
            print(f"{os.path.basename(path):<28} {1e3 * t_cli:>10.2f} {1e3 * t_load:>10.2f} "
                  f"{1e3 * t_model:>10.2f} {1e3 * t_compiled:>10.2f}")


if __name__ == "__main__":
    main()
