# Produced the expected normal forces of ContactFriction.LeaningRod* in
# tests/acceptance/contact_friction_test.cpp; not run by the test suite.
# Run: /usr/bin/python3 tests/checks/leaning_rod_combinations.py (NumPy and
# SciPy from Debian: python3-numpy, python3-scipy).
#
# Independent check of the leaning rod's instant t = 0 (two floor corners,
# x tangents slipping with v, y tangents at zero rate), every closed/open and
# stick/slip combination as a linear feasibility problem (scipy linprog), so
# statically indeterminate combinations (both corners stuck sideways: the
# two y rows are dependent, a_y0 = a_y1 for a rigid rod) are handled exactly.
import itertools
import numpy as np
from scipy.optimize import linprog

def setup(mu, v, l=1.0, w=0.01, m=1.0, g=9.81):
    th = np.arctan(2.0); b = -th
    R = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])  # Ry(b)
    Iinv = np.linalg.inv(R @ np.diag([1e-4, 1/3, 1/3]) @ R.T)
    r = [R @ np.array([-l, s, -w]) for s in (-w, w)]
    ex, ey, ez = np.eye(3)
    acc = lambda i, j, d: d/m + np.cross(Iinv @ np.cross(r[j], d), r[i])
    sx = np.sign(v)
    cols = []
    for u in range(4):  # N0, N1, Fy0, Fy1 (Fx_i = -mu sx N_i)
        j = u % 2
        d = ez - mu*sx*ex if u < 2 else ey
        cols.append(np.concatenate([acc(0, j, d), acc(1, j, d)]))
    return np.column_stack(cols), np.tile([0, 0, -g], 2), r

def combos(mu, v):
    A, a0, r = setup(mu, v)
    out = []
    for modes in itertools.product(['open', 'stick', '+', '-'], repeat=2):
        # variables x = (N0, N1, Fy0, Fy1, delta); maximise delta (the strict margins)
        Aeq, beq, Aub, bub = [], [], [], []
        def row(coef4, d=0.0): return np.concatenate([coef4, [d]])
        for i, md in enumerate(modes):
            az, ay = A[3*i+2], A[3*i+1]
            eN = np.eye(4)[i]; eF = np.eye(4)[2+i]
            if md == 'open':
                Aeq += [row(eN), row(eF)]; beq += [0, 0]
                Aub.append(row(-az)); bub.append(a0[3*i+2])      # a_z >= 0
                continue
            Aeq.append(row(az)); beq.append(-a0[3*i+2])          # a_z = 0
            Aub.append(row(-eN)); bub.append(0)                   # N >= 0
            if md == 'stick':
                Aeq.append(row(ay)); beq.append(-a0[3*i+1])      # a_y = 0
                Aub += [row(eF - mu*eN), row(-eF - mu*eN)]; bub += [0, 0]
            else:
                s = 1 if md == '+' else -1
                Aeq.append(row(eF + s*mu*eN)); beq.append(0)     # Fy = -s mu N
                Aub.append(row(-s*ay, 1.0)); bub.append(s*a0[3*i+1])  # s a_y >= delta
        res = linprog(np.array([0, 0, 0, 0, -1.0]), A_ub=np.array(Aub), b_ub=np.array(bub),
                      A_eq=np.array(Aeq), b_eq=np.array(beq),
                      bounds=[(None, None)]*4 + [(None, 1.0)], method='highs')
        slipping = any(md in '+-' for md in modes)
        ok = res.status == 0 and (not slipping or res.x[4] > 1e-9)
        if not ok: continue
        # the range of each unknown over the combination's solutions
        rng = []
        for u in range(4):
            lohi = []
            for sgn in (1, -1):
                c = np.zeros(5); c[u] = sgn
                Aub2 = np.array(Aub + ([row(np.zeros(4), -1.0)] if slipping else []))
                bub2 = np.array(bub + ([-1e-9] if slipping else []))
                rr = linprog(c, A_ub=Aub2, b_ub=bub2, A_eq=np.array(Aeq), b_eq=np.array(beq),
                             bounds=[(None, None)]*4 + [(None, 1.0)], method='highs')
                lohi.append(sgn*rr.fun if rr.status == 0 else (-np.inf if sgn == 1 else np.inf))
            rng.append(tuple(lohi))
        out.append((modes, res.x[:4], rng))
    return out

if __name__ == '__main__':
    for mu, v in [(2, -1), (0.5, -1), (0.3, -1), (0.2, -1), (2, 1), (0.5, 1)]:
        print(f"mu = {mu}, v = {v}:")
        for modes, x, rng in combos(mu, v):
            print(f"   consistent {modes}: N0 in [{rng[0][0]:.12g}, {rng[0][1]:.12g}], N1 in [{rng[1][0]:.12g}, {rng[1][1]:.12g}], "
                  f"Fy0 in [{rng[2][0]:.6g}, {rng[2][1]:.6g}], Fy1 in [{rng[3][0]:.6g}, {rng[3][1]:.6g}]")
