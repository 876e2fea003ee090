#!/usr/bin/env python3
"""One table of ictus and the peers from the CSV files of one run (bench/peers/run.sh), and a plot
of the cost against N.

Usage: /usr/bin/python3 table.py RESULT_DIR
Writes RESULT_DIR/table.md (printed too), RESULT_DIR/table.csv and RESULT_DIR/cost_vs_n.svg.

Cost: CPU seconds per simulated second. The peers time their loop in process CPU time
(drivers/bench_common.hpp); for ictus it is the CPU time of the `ictus run` process minus that of the
same command run to 1e-3 s (load, build, assembly), over the simulated time (run_ictus.py).
Evaluations per simulated second: ictus counts them; Simbody reports its realizations; MuJoCo's
RK4 makes 4 per step and its Euler, DART and Siconos 1. Accuracy: the energy drift dE_rel (the
peers' normalisation: m g L N^2 / 2 for the chains, E0 for the slider-crank) and, where the engine
reports one, the largest constraint violation. Ratio: cost of the row / cost of ictus rk4 on the
same model and N (above 1: slower than ictus).
"""
import csv
import glob
import math
import os
import sys

HEADER = ("engine,model,variant,n,dt,tsim,steps,build_s,reps,wall_min_s,wall_med_s,"
          "wall_per_simsec_min,steps_per_s_min,E0,E_end,dE,dE_rel").split(",")


def read_rows(directory):
    rows = []
    for path in sorted(glob.glob(os.path.join(directory, "*.csv"))):
        if os.path.basename(path) == "table.csv":
            continue
        with open(path) as f:
            for r in csv.reader(line for line in f if line.count(",") >= 16):
                if r[0] == "engine":
                    continue
                x = dict(zip(HEADER, r[:17]))
                x["extra"] = dict(kv.split("=", 1) for kv in ",".join(r[17:]).split(";") if "=" in kv)
                x["engine_name"] = x["engine"].split("-")[0]
                rows.append(x)
    return rows


def cost(r):
    """CPU seconds per simulated second."""
    if r["engine_name"] == "ictus":
        e = r["extra"]
        return max(float(e["proc_cpu_min_s"]) - float(e["startup_cpu_s"]), 0.0) / float(r["tsim"])
    return float(r["wall_per_simsec_min"])


def evaluations_per_second(r):
    e, steps, tsim = r["extra"], float(r["steps"]), float(r["tsim"])
    if "evaluations" in e:
        return float(e["evaluations"]) / tsim
    if "realizations" in e:
        return float(e["realizations"]) / tsim
    per_step = 4 if "RK4" in r["variant"] else 1
    return per_step * steps / tsim


def main():
    directory = sys.argv[1]
    rows = [r for r in read_rows(directory) if r["model"] != "ball"]
    reference = {(r["model"], int(r["n"])): cost(r) for r in rows
                 if r["engine_name"] == "ictus" and r["variant"].startswith("rk4")}
    rows.sort(key=lambda r: (r["model"], int(r["n"]), r["engine_name"] != "ictus", r["engine_name"],
                             r["variant"]))
    table = []
    for r in rows:
        c = cost(r)
        ref = reference.get((r["model"], int(r["n"])))
        violation = r["extra"].get("max_violation", "-")
        table.append({
            "model": r["model"], "N": r["n"], "engine": r["engine_name"], "variant": r["variant"],
            "cpu_s_per_sim_s": f"{c:.4g}", "evaluations_per_sim_s": f"{evaluations_per_second(r):.4g}",
            "energy_drift": f"{float(r['dE_rel']):.2e}", "max_violation": violation,
            "ratio_to_ictus_rk4": f"{c / ref:.3g}" if ref else "-",
        })
    keys = list(table[0].keys()) if table else []
    with open(os.path.join(directory, "table.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(table)
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(t[k] for k in keys) + " |" for t in table]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(directory, "table.md"), "w") as f:
        f.write(text)
    print(text)
    plot(rows, os.path.join(directory, "cost_vs_n.svg"))


def plot(rows, path):
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, model in zip(axes, ("chain", "chain3d")):
        series = {}
        for r in rows:
            if r["model"] == model:
                series.setdefault(f"{r['engine_name']} {r['variant']}", []).append(
                    (int(r["n"]), cost(r)))
        for label, points in sorted(series.items()):
            points.sort()
            ns, cs = zip(*points)
            style = "-o" if label.startswith("ictus") else "--s"
            ax.loglog(ns, cs, style, label=label, markersize=4)
        ax.set_title(f"{model}: CPU time per simulated second")
        ax.set_xlabel("N (links)")
        ax.set_ylabel("CPU s / simulated s")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
