"""IR → IR passes applied between the front end and detection: value analysis and domain
narrowing (``domains``), and domains taken from the reachable states (``reachable``).

Each pass takes a ``SequentialModel`` and returns one with the same reachable transition
system (or refuses with a reason); none changes what a model means.
"""
