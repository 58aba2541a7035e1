"""A ball dropped on the ground, recorded with contact_lens_recorder (docs/recording-format.md).

    python3 example_drop.py drop.rec.jsonl [--force]

Physics (about 30 lines, semi-implicit Euler with one sequential-impulse contact, as in Catto, "Iterative
Dynamics with Temporal Coherence", GDC 2005): gravity first, then the ground contact's normal impulse
lambda_n = max(0, m * b_n) with b_n = -(1 + e) v_n + (erp / dt) max(0, depth - slop) (the format's own b,
docs/recording-format.md "Frames"); restitution e = 0.5 only above the rest-velocity threshold; then the
position update. The lever arm is parallel to the normal, so A_nn = 1/m and the ball does not spin.
Prints the bits of the last frame's ball height so a test can check the round trip bit for bit.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contact_lens_recorder import (Recorder, body_state, contact, plane, pre_state,  # noqa: E402
                                   solver_result, sphere)

DT = 1.0 / 120.0
G = -9.81
RADIUS, MASS = 0.1, 1.0
E, MU, ERP, SLOP, REST = 0.5, 0.5, 0.2, 0.005, 0.5
FRAMES = 240


def main(argv):
    if len(argv) < 2:
        print("usage: example_drop.py OUT.rec.jsonl [--force]", file=sys.stderr)
        return 2
    rec = Recorder.create(argv[1], dt=DT, gravity=(0.0, 0.0, G),
                          bodies=[plane("ground", (0.0, 0.0, 1.0), 0.0), sphere("ball", RADIUS, MASS)],
                          producer=("contact-lens-python-example", "1.0"),
                          solver={"name": "sequential-impulse", "kind": "iterative-fixed", "maxIterations": 1, "erp": ERP, "slop": SLOP,
                                  "restVelocityThreshold": REST},
                          overwrite="--force" in argv)
    z, vz = 1.0, 0.0
    q, zero = (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    with rec:
        for k in range(FRAMES):
            v_pre = vz + G * DT                      # gravity, before the contact solve
            depth = RADIUS - z                       # ground plane z = 0, normal +z from ground (b) into ball (a)
            contacts, lam = [], []
            if depth >= 0.0:
                e = E if -v_pre > REST else 0.0
                b_n = -(1.0 + e) * v_pre + (ERP / DT) * max(0.0, depth - SLOP)
                lam_n = max(0.0, MASS * b_n)         # A_nn = 1/m
                contacts = [contact(1, 0, (0.0, 0.0, z - RADIUS), (0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0),
                                    depth, MU, E, feature="ball/ground")]
                lam = [lam_n, 0.0, 0.0]
            vz = v_pre + (lam[0] if lam else 0.0) / MASS
            z_pre, z = z, z + vz * DT                # positions after the solve (semi-implicit Euler)
            rec.write_frame(frame=k, time=(k + 1) * DT,
                            bodies=[body_state(zero, q, zero, zero), body_state((0.0, 0.0, z), q, (0.0, 0.0, vz), zero)],
                            pre=[pre_state(zero, zero), pre_state((0.0, 0.0, v_pre), zero, (0.0, 0.0, z_pre), q)],
                            contacts=contacts,
                            solver=solver_result("sequential-impulse", "converged", lam, iterations=1 if contacts else 0))
    print(f"wrote {FRAMES} frames to {argv[1]}; last z bits {struct.unpack('<Q', struct.pack('<d', z))[0]}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception as e:  # one clear line, no traceback
        print(f"example_drop.py: {e}", file=sys.stderr)
        sys.exit(1)
