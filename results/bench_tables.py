"""Benchmark: computing a constraint's allowed-assignment table three ways.

``detect.symmetry.constraints`` enumerates tables with ``itertools.product`` (``_Builder.emit``).  This script
compares that with python-constraint (the library the project brief names) and with numpy
over the product, on functional constraints ``t = f(a, b)`` of growing size.  Run:
``python results/bench_tables.py > results/tables.md``.
"""
from __future__ import annotations

import itertools
import platform
import time

import numpy as np
from constraint import FunctionConstraint, Problem


def by_python_constraint(da, db, dt, f):
    problem = Problem()
    problem.addVariable("a", list(da))
    problem.addVariable("b", list(db))
    problem.addVariable("t", list(dt))
    problem.addConstraint(FunctionConstraint(lambda a, b, t: f(a, b) == t), ("a", "b", "t"))
    return {(s["a"], s["b"], s["t"]) for s in problem.getSolutions()}


def by_itertools(da, db, dt, f):
    # What detect.symmetry.constraints does: enumerate the product, keep the tuples the relation allows.
    return {(a, b, t) for a, b, t in itertools.product(da, db, dt) if f(a, b) == t}


def by_numpy(da, db, dt, f):
    a, b, t = np.meshgrid(np.array(da), np.array(db), np.array(dt), indexing="ij")
    keep = f(a, b) == t
    return set(zip(a[keep].tolist(), b[keep].tolist(), t[keep].tolist()))


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def main() -> None:
    print(f"Machine: {platform.machine()}, Python {platform.python_version()}; "
          "relation t = (a + b) % m over a, b in 0..n-1, t in 0..m-1\n")
    print("| combinations | python-constraint ms | itertools ms | numpy ms | tuples |")
    print("|---|---|---|---|---|")
    for n, m in ((4, 4), (10, 10), (20, 50), (46, 46), (100, 10), (100, 100)):
        da, db, dt = range(n), range(n), range(m)
        f = lambda a, b: (a + b) % m
        t_pc, r_pc = timed(by_python_constraint, da, db, dt, f)
        t_it, r_it = timed(by_itertools, da, db, dt, f)
        t_np, r_np = timed(by_numpy, da, db, dt, f)
        assert r_pc == r_it == r_np
        print(f"| {n * n * m:,} | {t_pc * 1e3:.2f} | {t_it * 1e3:.2f} | {t_np * 1e3:.2f} | {len(r_it):,} |")


if __name__ == "__main__":
    main()
