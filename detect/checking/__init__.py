"""Model checking with the detected symmetries: reduced exploration (``reduce``), generators
verified against the explored transition relation (``verify``), completeness against the
automorphism group of the reachable LTS (``completeness``), brute-force orbits and group
elements to check reductions against (``orbits``), and the counts peers print
(``murphi_counts``: CMurphi's rules fired; ``spin_counts``: Spin's states stored).
"""
