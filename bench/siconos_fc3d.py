#!/usr/bin/env python3
"""Siconos's fc3d solvers on the problems bench/fclib.ts sends, for its side-by-side table.

Reads JSON requests on stdin, one per line (so the caller interleaves them with its own runs, under the same
machine load): {"probe": true} answers {"siconos": version, "storage": ...}; a problem request
  {"tolerance": 1e-8, "runs": 5, "maxSeconds": 3, "batchMs": 1, "warmupRuns": 50, "warmupMs": 300, "solvers": [...],
   "problem": {"id": ..., "n": 3C, "rows": [...], "cols": [...], "vals": [...], "q": [...], "mu": [...]}}
(W as triplets of its nonzero entries, FCLIB's local problem u = W r + q) answers one JSON line per solver:
{"id", "solver", "times" (ms per solve of each measured run), "iterations", "info", "error", "r"} or
{"id", "solver", "exception"}, then {"done": id}. A solve faster than batchMs is timed over a batch of
solves (the mean per solve), as bench/fclib.ts times its own; "clock": "cpu" times each solve in CPU time of this
process (time.process_time: the waits for a core on a loaded machine are not counted), else in wall time.

Each solver runs with its Siconos defaults (fc3d_driver, SolverOptions(id)) and the given tolerance (Siconos's
own error, ‖·‖/‖q‖); the caller judges every r with its own FCLIB merit. W is given in Siconos's sparse block
storage (SBM, 3×3 blocks, as Siconos reads its own test problems) when scipy is importable, otherwise as a
sparse triplet matrix. Times are of fc3d_driver alone (time.process_time or time.perf_counter), the problem built once.
Siconos (Apache License 2.0): Debian's python3-siconos.
"""
import json
import sys
import time

import numpy as np
import siconos.numerics as sn

try:
    import scipy.sparse as sparse
except ImportError:  # triplet storage instead of SBM
    sparse = None

KEEP = []  # Siconos matrices built from Python objects: keep them alive while the problems are used


def build_matrix(p):
    n = p["n"]
    rows = np.asarray(p["rows"], dtype=np.int64)
    cols = np.asarray(p["cols"], dtype=np.int64)
    vals = np.asarray(p["vals"], dtype=np.float64)
    if sparse is not None:
        csc = sparse.csc_matrix((vals, (rows, cols)), shape=(n, n))
        csc.indices = csc.indices.astype(np.int64)
        csc.indptr = csc.indptr.astype(np.int64)
        info, sbm = sn.SBM_from_csparse(3, csc)
        if info == 0:
            KEEP.append((csc, sbm))
            return sn.NM_new_SBM(n, n, sbm), "SBM"
    m = sn.NM_create(sn.NM_SPARSE, n, n)
    sn.NM_triplet_alloc(m, len(vals))
    for i, j, v in zip(rows.tolist(), cols.tolist(), vals.tolist()):
        sn.NM_zentry(m, i, j, v, 0.0)
    KEEP.append(m)
    return m, "sparse triplet"


def solve_once(fc, solver_id, n, tolerance, clock):
    r = np.zeros(n)
    u = np.zeros(n)
    options = sn.SolverOptions(solver_id)
    options.dparam[sn.SICONOS_DPARAM_TOL] = tolerance
    t0 = clock()
    info = sn.fc3d_driver(fc, r, u, options)
    return (clock() - t0) * 1e3, info, options, r


def run(problem, fc, name, tolerance, runs, max_seconds, batch_ms, warmup_runs, warmup_ms, clock):
    solver_id = getattr(sn, "SICONOS_FRICTION_3D_" + name)
    n = problem["n"]
    # warm-up: as bench/fclib.ts warms its own solvers (warmup_runs solves, or warmup_ms)
    first, info, options, r = solve_once(fc, solver_id, n, tolerance, clock)
    started = time.perf_counter()
    for _ in range(warmup_runs):
        if (time.perf_counter() - started) * 1e3 >= warmup_ms:
            break
        t, info, options, r = solve_once(fc, solver_id, n, tolerance, clock)
        first = min(first, t)
    batch = 1 if first >= batch_ms else min(1000, int(batch_ms / max(first, 1e-4)) + 1)
    times = []
    started = time.perf_counter()
    for _ in range(runs):
        total = 0.0
        for _ in range(batch):
            t, info, options, r = solve_once(fc, solver_id, n, tolerance, clock)
            total += t
        times.append(total / batch)
        if time.perf_counter() - started > max_seconds:
            break
    return {
        "id": problem["id"],
        "solver": name,
        "times": times,
        "iterations": int(options.iparam[sn.SICONOS_IPARAM_ITER_DONE]),
        "info": int(info),
        "error": float(options.dparam[sn.SICONOS_DPARAM_RESIDU]),
        "r": r.tolist(),
    }


def version():
    try:
        from importlib.metadata import version as dist_version

        return dist_version("siconos")
    except Exception:  # Debian's package may carry no distribution metadata
        return "unknown version"


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("probe"):
            print(json.dumps({"siconos": version(), "storage": "SBM" if sparse is not None else "sparse triplet"}), flush=True)
            continue
        problem = request["problem"]
        matrix, _ = build_matrix(problem)
        fc = sn.FrictionContactProblem(3, matrix, np.asarray(problem["q"], dtype=np.float64), np.asarray(problem["mu"], dtype=np.float64))
        for name in request["solvers"]:
            try:
                out = run(
                    problem,
                    fc,
                    name,
                    float(request["tolerance"]),
                    int(request["runs"]),
                    float(request.get("maxSeconds", 3)),
                    float(request.get("batchMs", 1)),
                    int(request.get("warmupRuns", 1)),
                    float(request.get("warmupMs", 0)),
                    time.process_time if request.get("clock") == "cpu" else time.perf_counter,
                )
            except Exception as e:  # a solver that throws is reported, the others go on
                out = {"id": problem["id"], "solver": name, "exception": str(e).splitlines()[0][:200]}
            print(json.dumps(out), flush=True)
        print(json.dumps({"done": problem["id"]}), flush=True)


if __name__ == "__main__":
    main()
