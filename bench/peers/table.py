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
reports one, the largest constraint violation; and per model the error against its reference:
the V8's crank angle at 1 s (kV8CrankAngleRef), the ball's first 5 apex heights against h0 e^(2k)
(largest relative error), the piston's first 10 contact phases against shared/reference case 2
(largest error of the impact time, largest relative error of the exit speed). Ratio: cost of the
row / cost of ictus's reference run on the same model and N (rk4; ida on the stiff piston; above 1:
slower than ictus).
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


V8_CRANK_ANGLE_REF = 314.5538601182  # drivers/bench_common.hpp kV8CrankAngleRef
MODEL_ORDER = ["chain", "chain3d", "slidercrank", "v8", "ball", "piston"]


def reference_variant(model):
    return "ida" if model == "piston" else "rk4"


def accuracy(r):
    """The model's error against its reference, as text ('-' where the model has none)."""
    e, model = r["extra"], r["model"]
    try:
        if model == "v8" and "crank_angle_end" in e:
            return f"crank angle {abs(float(e['crank_angle_end']) - V8_CRANK_ANGLE_REF):.1e} rad"
        if model == "ball":
            errors = []
            for k in range(1, 6):
                text = e.get(f"h{k}")
                if text is None:
                    return f"{k - 1} apexes only"
                h, ana = text.split("(ana")
                errors.append(abs(float(h) - float(ana.rstrip(")"))) / float(ana.rstrip(")")))
            # ictus prints 9 decimals, the peers 5: an error of 0 is below the printed digits
            return f"apex {max(errors):.1e} rel" if max(errors) > 0 else "apex < 1e-8 rel"
        if model == "piston":
            if int(e.get("impacts", "0")) < 10:
                return f"{e.get('impacts', 0)} impacts (10 expected)"
            return (f"t_impact {float(e['err_t_max']):.1e} s, "
                    f"v_out {float(e['err_vout_rel_max']):.1e} rel")
    except (KeyError, ValueError):
        return "unreadable"
    return "-"


def main():
    directory = sys.argv[1]
    rows = read_rows(directory)
    reference = {(r["model"], int(r["n"])): cost(r) for r in rows
                 if r["engine_name"] == "ictus" and r["variant"].startswith(
                     reference_variant(r["model"]))}
    rows.sort(key=lambda r: (MODEL_ORDER.index(r["model"]) if r["model"] in MODEL_ORDER else 99,
                             r["model"], int(r["n"]), r["engine_name"] != "ictus", r["engine_name"],
                             r["variant"]))
    table = []
    for r in rows:
        c = cost(r)
        ref = reference.get((r["model"], int(r["n"])))
        violation = r["extra"].get("max_violation", "-")
        drift = float(r["dE_rel"]) if r["dE_rel"] not in ("", "nan", "-nan") else math.nan
        # the ball and the piston dissipate by design: their energy change is no error
        drift_text = "-" if math.isnan(drift) or r["model"] in ("ball", "piston") else f"{drift:.2e}"
        table.append({
            "model": r["model"], "N": r["n"], "engine": r["engine_name"], "variant": r["variant"],
            "cpu_s_per_sim_s": f"{c:.4g}", "evaluations_per_sim_s": f"{evaluations_per_second(r):.4g}",
            "energy_drift": drift_text, "max_violation": violation, "accuracy": accuracy(r),
            "ratio_to_ictus": f"{c / ref:.3g}" if ref else "-",
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
        if not series:
            ax.set_visible(False)
            continue
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
