"""The IR: ``SequentialModel`` and its parts (``model``), the reference semantics of its
operators and programs (``semantics``), its printer (``pretty``), the walkers every pass uses instead of its own
``isinstance`` chain (``walk``), the one rule for building guards with constant folding
(``build``: ``conj``, ``disj``, ``neg``, ``fold``), and literal points (``points``).

Every other package depends on this one and it depends on nothing of ours: front ends
build IR values, transforms map IR to IR, detection and checking read it.  ``detect.ir``
re-exports ``detect.ir.model`` so ``from detect.ir import Summand`` names the data type.
"""
from detect.ir.model import *  # noqa: F401,F403  (the IR's public names; see model.__all__)
from detect.ir.walk import may_fault  # noqa: F401  (re-exported: front ends use it)
from detect.ir.model import __all__ as _model_names

__all__ = [*_model_names, "may_fault"]
