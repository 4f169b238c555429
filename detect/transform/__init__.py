"""IR → IR passes applied between the front end and detection: the one narrowing step
(``narrowing``: a front end's model with its domains settled and narrowed, by one policy),
built on the value analysis (``domains``) and domains taken from the reachable states
(``reachable``); ``load`` reads a model and narrows it (``load_model``).

Each pass takes a ``SequentialModel`` and returns one with the same reachable transition
system (or refuses with a reason); none changes what a model means.
"""
