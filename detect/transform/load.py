"""Models as the later stages use them: read by a front end, then narrowed once.

``load_model`` is what the command line, the benchmarks and the tests call; the front ends'
own ``load``/``parse_text`` give the model before narrowing (``detect.transform.narrowing``),
and ``narrowed(front_end.parse_text)`` is that function followed by narrowing.
"""
from __future__ import annotations

import functools
from typing import Callable, Mapping, Optional

from detect.ir import SequentialModel
from detect.statespace.explore import Progress
from detect.transform.narrowing import NarrowingPolicy, narrow
from frontends import load


def load_model(path: str, defines: Mapping[str, int] = {}, process: Optional[str] = None,
               policy: Optional[NarrowingPolicy] = None, max_procs: Optional[int] = None,
               domain_states: Optional[int] = None, progress: Optional[Progress] = None,
               loop_max: Optional[int] = None, multiset_sort: bool = True,
               ltl_name: Optional[str] = None) -> SequentialModel:
    """The model at ``path`` (``frontends.load``) narrowed by ``policy`` (default: its
    language's), exploring at most ``domain_states`` states (default: the policy's) where
    narrowing takes domains from the reachable states; every user error is an ``InputError``.
    ``progress``: see ``narrow``; ``loop_max``, ``multiset_sort``, ``ltl_name``: see
    ``frontends.load``."""
    return narrow(load(str(path), defines, process, max_procs, loop_max, multiset_sort, ltl_name), policy,
                  domain_states, progress)


def narrowed(read: Callable[..., SequentialModel]) -> Callable[..., SequentialModel]:
    """``read`` (a front end's ``load`` or ``parse_text``) followed by ``narrow`` with the
    policy of the model's language: a front end as later stages see it."""

    @functools.wraps(read)
    def read_narrowed(*args, **kwargs) -> SequentialModel:
        return narrow(read(*args, **kwargs))

    return read_narrowed
