"""PAT CSP# front end: ``load``/``parse_text`` a ``.csp`` model into a ``SequentialModel``.

The system process is, in order of preference: the ``process=`` argument, the process named
in the first ``#assert``, a process named ``System``, the last process defined.
"""
from __future__ import annotations

import os
from typing import Mapping, Optional

from detect.errors import InputError
from detect.ir import SequentialModel

from frontends.kit import read_source
from frontends.csp.linearise import build_model
from frontends.csp.scope import build_scope
from frontends.csp.syntax import Define, parse_script

__all__ = ["load", "parse_text"]


def parse_text(text: str, path: str = "<input>", defines: Mapping[str, int] = {},
               process: Optional[str] = None, max_procs: Optional[int] = None) -> SequentialModel:
    """Parse and linearise CSP# ``text``; every user error is an ``InputError``.  ``max_procs``
    bounds the processes spawned by ``Q() ||| P()`` inside a sequential process alive at once,
    per spawning process and spawned process (``DEFAULT_MAX_SPAWNED`` when ``None``)."""
    script = parse_script(text, path)
    scope = build_scope(script, defines)
    if not scope.processes:
        raise InputError("the model defines no process", path)
    args: tuple = ()
    if process is not None:
        if process not in scope.processes:
            known = ", ".join(sorted(scope.processes))
            raise InputError(f"no process named '{process}'; processes: {known}", path)
        system = process
    elif scope.assertions:
        first = scope.assertions[0]
        if first.process not in scope.processes:
            raise scope.error(f"unknown process '{first.process}' in #assert", first.pos)
        system, args = first.process, first.args
    elif "System" in scope.processes:
        system = "System"
    else:
        system = list(scope.processes)[-1]
    d = scope.processes[system]
    if len(args) != len(d.params):
        if args or d.params:
            raise InputError(f"system process '{system}' needs {len(d.params)} argument(s), got {len(args)}",
                             path, d.pos.line, d.pos.column)
    name = os.path.splitext(os.path.basename(path))[0] or "model"
    numeric = tuple(sorted((k, v) for k, v in scope.numeric.items()
                           if any(isinstance(it, Define) and it.name == k
                                  for it in script.items)))
    return build_model(scope, system, args, name, numeric, max_procs)


def load(path: str, defines: Mapping[str, int] = {}, process: Optional[str] = None,
         max_procs: Optional[int] = None) -> SequentialModel:
    """Read ``path`` and linearise it (see ``parse_text``)."""
    return parse_text(read_source(path), path, defines, process, max_procs)
