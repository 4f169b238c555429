"""Draw the coloured graph of token circulation (seed 002, Fig. 2) for N=3.

Writes ``results/token_circulation_N3.png`` (the whole graph, sfdp layout, legend of colour
classes → node kinds) and ``results/token_circulation_N3_constraint.png`` (one constraint with
its tuples, literals and variables, the view of seed 002's Fig. 5).  Run from the repository
root:  python results/token_circulation_png.py
"""
from __future__ import annotations

import os
import re

from detect.symmetry.constraints import translate
from detect.export import ExportOptions, atomic_write, export_chunks
from detect.symmetry.graph import CONSTRAINT, INIT, build_graph
from detect.transform.load import load_model as load

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "models", "token_circulation.csp")


def main() -> None:
    model = load(MODEL, {"N": 3})
    whole = os.path.join(HERE, "token_circulation_N3.png")
    atomic_write(whole, export_chunks(model, "png", ExportOptions(layout="sfdp")))
    print("wrote", whole)
    # The first read "(x = 2) -> r = label[2]" (label[u] read while Rule1's guard compares
    # label[u] and label[v]): picked by its text, since constraint numbers follow the CSP.
    graph = build_graph(translate(model, 100_000))
    constraints = [v for v in range(graph.n) if graph.kind[v] in (CONSTRAINT, INIT)]
    chosen = next(i for i, v in enumerate(constraints)
                  if re.fullmatch(r"\(x = 2\) -> \S+ = label\[2\]", graph.label[v]))
    part = os.path.join(HERE, "token_circulation_N3_constraint.png")
    atomic_write(part, export_chunks(model, "png", ExportOptions(constraint=chosen, layout="neato")))
    print("wrote", part)


if __name__ == "__main__":
    main()
