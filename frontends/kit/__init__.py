"""What the four front ends share: helpers each language's lowering would otherwise repeat
(``lowering``: FIFO buffers, rendezvous hand-offs, program counters, exclusive owners).

Depends on ``detect.ir`` only; the language packages depend on it, never the reverse.
"""
