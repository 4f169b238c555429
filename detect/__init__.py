"""symdetect: constraint-based symmetry detection for concurrent models (seed 002)."""
