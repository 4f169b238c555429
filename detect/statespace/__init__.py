"""The next-state interface and the explorers of a ``SequentialModel``.

``compile`` turns the IR into Python next-state functions (``CompiledModel``: initial states,
steps, faults); ``explore`` is breadth-first search over them, with optional canonicalisation
and checked symmetries; ``native`` generates, compiles and loads C for the same interface.
Transforms use it to take domains from the reachable states; checking builds on it.
"""
