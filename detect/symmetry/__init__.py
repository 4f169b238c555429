"""Symmetry detection (seed 002): model → CSP (``constraints``) → Puget coloured graph
(``graph``) → automorphism generators (``automorphisms``: pynauty, bliss, igraph) → a group of
literal permutations described as process, data and mixed symmetries (``group``, ``perm``).
``pipeline.detect`` runs the stages in order and times them.
"""
