#!/usr/bin/python3
"""Plots of the seeds' application examples for docs/examples/*.md.

Runs each example with the given ictus, reads its results.csv and
events.csv (and `ictus spectrum` CSVs for the engine) and writes
docs/examples/<name>.svg. Needs Debian's python3-matplotlib:

    /usr/bin/python3 scripts/plot_examples.py build/release/apps/ictus [NAME ...]
"""
import csv
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs", "examples")
plt.rcParams["svg.hashsalt"] = "ictus"  # the same SVG from the same numbers
plt.rcParams["font.size"] = 9


def run(ictus, name, out, sets=()):
    args = [ictus, "run", os.path.join(ROOT, "examples", name + ".yaml"), "--out", out,
            "--no-progress"]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def table(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {k: [float(r[k]) for r in rows] for k in rows[0]}


def structure_changes(directory):
    """(t, 'a -> b') of every structure record of events.csv."""
    out = []
    with open(os.path.join(directory, "events.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["kind"] == "structure":
                dof = r["detail"].split(";")[0].replace("degrees of freedom ", "")
                out.append((float(r["time"]), dof))
    return out


def mark_changes(ax, changes, label=True):
    for t, dof in changes:
        ax.axvline(t, color="0.6", lw=0.7, ls="--")
        if label:
            ax.annotate(dof + " dof", (t, 1.0), xycoords=("data", "axes fraction"),
                        rotation=90, va="top", ha="right", fontsize=7, color="0.3")


def save(fig, name):
    path = os.path.join(DOCS, name + ".svg")
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    print("wrote", os.path.relpath(path, ROOT))


def booster(ictus, tmp):
    d = os.path.join(tmp, "booster")
    run(ictus, "booster_separation", d)
    r, ch = table(os.path.join(d, "results.csv")), structure_changes(d)
    fig, (a, b) = plt.subplots(2, 1, figsize=(6.4, 5.2), sharex=True)
    for i in range(3):
        a.plot(r["t"], [v * 57.29577951308232 for v in r["hinge%d.angle" % i]],
               label="hinge%d.angle" % i)
    a.set_ylabel("hinge angle [deg]")
    a.legend(loc="center left")
    mark_changes(a, ch)
    for c in ("Fx", "Fy", "Fz"):
        b.plot(r["t"], [v / 1e3 for v in r["hinge0." + c]], label="hinge0." + c)
    b.set_ylabel("reaction on booster 0 [kN]")
    b.set_xlabel("t [s]")
    b.legend(loc="lower left")
    mark_changes(b, ch, label=False)
    save(fig, "booster_separation")


def solar(ictus, tmp):
    d = os.path.join(tmp, "solar")
    run(ictus, "solar_panel_deployment", d)
    r, ch = table(os.path.join(d, "results.csv")), structure_changes(d)
    fig, (a, b, c) = plt.subplots(3, 1, figsize=(6.4, 6.4), sharex=True)
    a.plot(r["t"], [v * 57.29577951308232 for v in r["hinge_right.angle"]], label="hinge_right")
    a.plot(r["t"], [v * 57.29577951308232 for v in r["hinge_left.angle"]], ls="--",
           label="hinge_left")
    a.set_ylabel("hinge angle [deg]")
    a.legend(loc="lower right")
    mark_changes(a, ch)
    b.plot(r["t"], r["sync_rod.Fx"], label="sync_rod.Fx")
    b.plot(r["t"], r["sync_rod.Fy"], label="sync_rod.Fy")
    b.set_ylabel("linkage force [N]")
    b.legend(loc="upper right")
    mark_changes(b, ch, label=False)
    for k in ("kinetic", "potential", "impacts"):
        c.plot(r["t"], r["energy." + k], label="energy." + k)
    c.set_ylabel("energy [J]")
    c.set_xlabel("t [s]")
    c.legend(loc="center right")
    mark_changes(c, ch, label=False)
    save(fig, "solar_panel_deployment")


def antenna(ictus, tmp):
    d = os.path.join(tmp, "antenna")
    run(ictus, "antenna_pointing", d)
    r = table(os.path.join(d, "results.csv"))
    fig, (a, b, c) = plt.subplots(3, 1, figsize=(6.4, 6.4), sharex=True)
    a.plot(r["t"], [v * 57.29577951308232 for v in r["azimuth.angle"]], label="azimuth.angle")
    a.plot(r["t"], [v * 57.29577951308232 for v in r["elevation.angle"]],
           label="elevation.angle")
    a.set_ylabel("angle [deg]")
    a.legend(loc="center right")
    b.plot(r["t"], r["az_motor.load"], label="az_motor.load")
    b.plot(r["t"], r["el_motor.load"], label="el_motor.load")
    b.set_ylabel("motor torque [N m]")
    b.legend(loc="center right")
    for k in ("azimuth.Mx", "azimuth.My", "elevation.Fx", "elevation.Fy"):
        c.plot(r["t"], r[k], label=k)
    c.set_ylabel("reaction [N, N m]")
    c.set_xlabel("t [s]")
    c.legend(loc="center right", ncol=2)
    save(fig, "antenna_pointing")


def engine(ictus, tmp):
    fig, (a, b) = plt.subplots(2, 1, figsize=(6.4, 5.6))
    for kv in ("2e5", "2e6"):
        d = os.path.join(tmp, "engine" + kv)
        run(ictus, "engine_isolated", d, ["kv=" + kv])
        for channel, ax in (("iso0.force", a), ("block.wz", b)):
            out = os.path.join(d, "spectrum_%s.csv" % channel)
            subprocess.run([ictus, "spectrum", d, channel, "--from", "0.1", "--to", "0.3",
                            "--out", out], check=True, stdout=subprocess.DEVNULL)
            s = table(out)
            f = [x for x in s[list(s)[0]]]
            ax.semilogy(f, [max(v, 1e-12) for v in s[list(s)[1]]], label="kv = %s N/m" % kv)
    for ax, what in ((a, "isolator 0 force [N]"), (b, "block roll rate wz [rad/s]")):
        ax.set_xlim(0, 450)
        ax.axvline(200, color="0.6", lw=0.7, ls="--")
        ax.annotate("firing order (4 x 50 Hz)", (200, 1.0), xycoords=("data", "axes fraction"),
                    va="top", ha="left", fontsize=7, color="0.3")
        ax.set_ylabel("amplitude, " + what)
        ax.legend(loc="upper right")
    a.set_ylim(1e-2, 1e4)
    b.set_ylim(1e-6, 1)
    b.set_xlabel("frequency [Hz]")
    save(fig, "engine_isolated")


def mount_block(ictus, tmp):
    d, d0 = os.path.join(tmp, "mb"), os.path.join(tmp, "mb0")
    run(ictus, "mount_block_3d", d)
    run(ictus, "mount_block_3d", d0, ["ex=0", "ey=0", "kh=0"])
    r, r0 = table(os.path.join(d, "results.csv")), table(os.path.join(d0, "results.csv"))
    fig, (a, b) = plt.subplots(2, 1, figsize=(6.4, 5.2), sharex=True)
    a.plot(r0["t"], r0["block.z"], label="symmetric (= seed 003's block)")
    a.plot(r["t"], r["block.z"], label="asymmetric")
    a.set_ylabel("block.z [m]")
    a.legend(loc="lower right")
    for k in ("block.wx", "block.wy", "block.wz"):
        b.plot(r["t"], r[k], label=k + " (asymmetric)")
    b.set_ylabel("angular velocity [rad/s]")
    b.set_xlabel("t [s]")
    b.legend(loc="upper right")
    save(fig, "mount_block_3d")


PLOTS = {"booster_separation": booster, "solar_panel_deployment": solar,
         "antenna_pointing": antenna, "engine_isolated": engine, "mount_block_3d": mount_block}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ictus = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(PLOTS)
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            PLOTS[n](ictus, tmp)


if __name__ == "__main__":
    main()
