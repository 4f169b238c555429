"""symdetect: constraint-based symmetry detection for concurrent models (seed 002).

Subpackages, lowest layer first (README, "Layout"): ``ir`` (the sequential-model IR, its
walkers and reference semantics), ``statespace`` (next-state functions and explorers),
``transform`` (IR → IR passes: domain narrowing), ``symmetry`` (CSP, coloured graph,
automorphisms, group), ``checking`` (reduced exploration, verification, completeness),
``export`` (writers), then ``bench`` and ``cli``.  Front ends live in the top-level
``frontends`` package, between ``ir`` and ``statespace``.
"""
