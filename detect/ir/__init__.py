"""The IR: ``SequentialModel`` and its parts (``model``), the reference semantics of its
operators and programs (``semantics``), its printer (``pretty``), and the one rule for
building guards with constant folding (``build``: ``conj``, ``disj``, ``neg``, ``fold``).

Every other package depends on this one and it depends on nothing of ours: front ends
build IR values, transforms map IR to IR, detection and checking read it.  ``detect.ir``
re-exports ``detect.ir.model`` so ``from detect.ir import Summand`` names the data type.
"""
from detect.ir.model import *  # noqa: F401,F403  (the IR's public names; see model.__all__)
from detect.ir.model import __all__  # noqa: F401
