"""Front ends: parse a concurrent model and linearise it into a ``detect.ir.SequentialModel``.

``load`` picks the front end from the file's suffix: ``.csp`` (PAT CSP#), ``.pml``/``.p``/
``.prom`` (Promela), ``.dve`` (DiVinE/BEEM), ``.m`` (Murphi, CMurphi's language).

Front ends depend on ``detect.ir`` and ``detect.errors`` only.  They narrow no domain: each
records in its model's ``DomainFacts`` what ``detect.transform.narrowing`` needs, and
``detect.transform.load.load_model`` loads and narrows.
"""
from __future__ import annotations

import os
from typing import Mapping, Optional

from detect.errors import InputError
from detect.ir import SequentialModel

SUFFIXES = {".csp": "csp", ".pml": "promela", ".p": "promela", ".prom": "promela", ".dve": "dve", ".m": "murphi"}


def load(path: str, defines: Mapping[str, int] = {}, process: Optional[str] = None,
         max_procs: Optional[int] = None, loop_max: Optional[int] = None,
         multiset_sort: bool = True, ltl_name: Optional[str] = None) -> SequentialModel:
    """Read and linearise the model at ``path``; every user error is an ``InputError``.
    ``max_procs`` bounds the processes alive at once where they are created at run time;
    ``loop_max`` the rounds of a ``While`` loop (its ``loop_bound``; default: the front end's,
    1000 for Murphi as CMurphi's ``-loop``); ``multiset_sort=False``: Murphi multisets are
    not sorted (CMurphi's ``-nomultiset``).  ``ltl_name`` (Promela) chooses the ``ltl`` block
    checked (default: the first).
    A file read before with the same code and arguments comes from ``model_cache``."""
    suffix = os.path.splitext(path)[1].lower()
    language = SUFFIXES.get(suffix)
    if language is None:
        known = ", ".join(sorted(SUFFIXES))
        raise InputError(f"unknown model language '{suffix or path}'; expected one of {known}", path)
    if not os.path.isfile(path):
        raise InputError("no such file", path)
    if process is not None and language != "csp":
        raise InputError("--process applies to CSP# models only", path)
    if max_procs is not None and language not in ("promela", "csp"):
        raise InputError("--max-procs applies to Promela and CSP# models only", path)
    if not multiset_sort and language != "murphi":
        raise InputError("--nomultiset applies to Murphi models only", path)
    if ltl_name is not None and language != "promela":
        raise InputError("--ltl applies to Promela models only", path)
    from frontends.model_cache import load_cached

    arguments = {"defines": tuple(sorted(defines.items())), "process": process, "max_procs": max_procs,
                 "loop_max": loop_max, "multiset_sort": multiset_sort}
    if ltl_name is not None:
        arguments["ltl"] = ltl_name
    return load_cached(path, language, arguments,
                       lambda: _read(path, language, defines, process, max_procs, loop_max, multiset_sort,
                                     ltl_name))


def _read(path: str, language: str, defines: Mapping[str, int], process: Optional[str],
          max_procs: Optional[int], loop_max: Optional[int] = None, multiset_sort: bool = True,
          ltl_name: Optional[str] = None) -> SequentialModel:
    """The front end of ``language`` reading ``path``."""
    if language == "murphi":
        from frontends.murphi import load as load_murphi

        return load_murphi(path, defines, loop_max=loop_max, multiset_sort=multiset_sort)
    model = _read_other(path, language, defines, process, max_procs, ltl_name)
    if loop_max is not None and loop_max != model.loop_bound:
        import dataclasses

        model = dataclasses.replace(model, loop_bound=loop_max)
    return model


def _read_other(path: str, language: str, defines: Mapping[str, int], process: Optional[str],
                max_procs: Optional[int], ltl_name: Optional[str] = None) -> SequentialModel:
    if language == "csp":
        from frontends.csp import load as load_csp

        return load_csp(path, defines, process=process, max_procs=max_procs)
    if language == "dve":
        from frontends.dve import load as load_dve

        return load_dve(path, defines)
    from frontends.promela import load as load_promela

    return load_promela(path, defines, max_procs, ltl_name)
