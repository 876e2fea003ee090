#!/usr/bin/python3
"""A stiff compliant model of a box on a rough floor against a rough wall.

The rigid model's stick decision is not unique where the contact forces are
statically indeterminate (docs/theory/friction.md, "Splits along the contact
rows"): a split that presses the box into the wall by floor friction gives
the wall friction capacity. This script asks what a compliant model, started
free of stress, does instead: each corner touching the floor (z = 0) or the
wall (x = 0.1 m) is a penalty spring (normal stiffness kn, half-critical
damping) with an elastic-plastic tangential spring (stiffness kt, an anchor
that slides where the spring force would exceed the Coulomb limit: mu_s N
while stuck, mu N once slipping). The box settles under gravity for 0.05 s,
then the push (fx, fy, 0) N is applied at the body point given, ramped over
`ramp` seconds (0: at once). Semi-implicit Euler, dt = 1e-5 s (2e-6 s above
kn = 1e6 N/m).

    compliant_box_crosscheck.py tall|cube FX FY PUSH_Z [RAMP] [KN]
        [--kt-ratio R] [--mu-kinetic MU]

tall: 2 kg, 0.2 x 0.2 x 0.4 m, pushed at (-0.1, 0, PUSH_Z) in the body's
frame from its base; cube: 1 kg, 0.2 m, pushed at (0, 0, PUSH_Z). Both have
mu_s = 0.5 and mu = 0.4 (--mu-kinetic to change it). Prints every 0.01 s
after the push: x, y, the yaw, w_z and the wall's normal force.
"""
import argparse

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("shape", choices=["tall", "cube"])
parser.add_argument("fx", type=float)
parser.add_argument("fy", type=float)
parser.add_argument("push_z", type=float)
parser.add_argument("ramp", type=float, nargs="?", default=0.0)
parser.add_argument("kn", type=float, nargs="?", default=1e6)
parser.add_argument("--kt-ratio", type=float, default=1.0)
parser.add_argument("--mu-kinetic", type=float, default=0.4)
args = parser.parse_args()

tall = args.shape == "tall"
m = 2.0 if tall else 1.0
inertia = np.diag([0.0217, 0.0217, 0.0133] if tall else [0.0067] * 3)
height = 0.4 if tall else 0.2
mu_s, mu_k = 0.5, args.mu_kinetic
kn = args.kn
kt = kn * args.kt_ratio
cn = ct = 0.5 * 2.0 * np.sqrt(kn * m / 4.0)  # half the critical damping of a corner
gravity = np.array([0.0, 0.0, -9.81])

# the corners (relative to the centre of mass) and the plane each can touch:
# (normal, offset) with n . p >= offset outside
floor = (np.array([0.0, 0.0, 1.0]), 0.0)
wall = (np.array([-1.0, 0.0, 0.0]), -0.1)
corners = [(np.array([x, y, -height / 2]), floor) for x in (-0.1, 0.1) for y in (-0.1, 0.1)]
corners += [(np.array([0.1, y, z]), wall) for y in (-0.1, 0.1) for z in (-height / 2, height / 2)]
push_at = np.array([-0.1 if tall else 0.0, 0.0, args.push_z - height / 2])

position = np.array([0.0, 0.0, height / 2 - m * 9.81 / (4 * kn)])  # settled on the floor
rotation = np.eye(3)
velocity = np.zeros(3)
omega = np.zeros(3)
anchor = [None] * len(corners)  # where each tangential spring is fixed to the plane
slipping = [False] * len(corners)


def rotation_of(phi):
    """The rotation by the vector phi (Rodrigues)."""
    angle = np.linalg.norm(phi)
    if angle < 1e-14:
        return np.eye(3)
    k = phi / angle
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


dt = 2e-6 if kn > 1e6 else 1e-5
settle = 0.05
steps = int((settle + 0.3) / dt)
sample = int(round(0.01 / dt))
for step in range(steps):
    t = step * dt
    force = m * gravity
    moment = np.zeros(3)
    if t >= settle:
        scale = 1.0 if args.ramp <= 0 else min(1.0, (t - settle) / args.ramp)
        push = scale * np.array([args.fx, args.fy, 0.0])
        force = force + push
        moment += np.cross(rotation @ push_at, push)
    wall_normal = 0.0
    for i, (body_point, (n, offset)) in enumerate(corners):
        r = rotation @ body_point
        p = position + r
        gap = n @ p - offset
        if gap >= 0:
            anchor[i], slipping[i] = None, False
            continue
        v = velocity + np.cross(omega, r)
        normal = max(0.0, -kn * gap - cn * (n @ v))
        if anchor[i] is None:
            anchor[i] = p.copy()
        stretch = p - anchor[i]
        stretch -= (n @ stretch) * n
        v_t = v - (n @ v) * n
        tangential = -kt * stretch - ct * v_t
        limit = (mu_k if slipping[i] else mu_s) * normal
        if np.linalg.norm(tangential) > limit:
            slipping[i] = True
            tangential *= mu_k * normal / np.linalg.norm(tangential)
            anchor[i] = p + tangential / kt  # the spring alone gives the slip force
            anchor[i] -= (n @ (anchor[i] - p)) * n
        elif np.linalg.norm(v_t) < 1e-6:
            slipping[i] = False
        f = normal * n + tangential
        force = force + f
        moment += np.cross(r, f)
        if n[0] != 0.0:
            wall_normal += normal
    velocity += dt * force / m
    world_inertia = rotation @ inertia @ rotation.T
    omega += dt * np.linalg.solve(world_inertia, moment - np.cross(omega, world_inertia @ omega))
    position += dt * velocity
    rotation = rotation_of(omega * dt) @ rotation
    if step % sample == 0 and t >= settle - 1e-12 and step > 0:
        yaw = np.arctan2(rotation[1, 0], rotation[0, 0])
        print(f"t={t - settle:.3f} x={position[0]:.3e} y={position[1]:.3e} yaw={yaw:.3e} "
              f"wz={omega[2]:.3e} wall_normal={wall_normal:.3f}")
