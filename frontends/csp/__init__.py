"""PAT CSP# front end: ``load``/``parse_text`` a ``.csp`` model into a ``SequentialModel``.

The system process is, in order of preference: the ``process=`` argument, the process named
in the first ``#assert``, a process named ``System``, the last process defined.
"""
from __future__ import annotations

import os
import re
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
    """Parse and linearise CSP# ``text``; every user error is an ``InputError``.  ``process``
    is ``NAME`` or ``NAME(args)`` (constant arguments).  ``max_procs`` bounds the processes
    spawned by ``Q() ||| P()`` inside a sequential process alive at once, per spawning
    process and spawned process (``DEFAULT_MAX_SPAWNED`` when ``None``).

    Each ``#assert`` is about its own process: one about another process than the system
    (another name, or other argument values) gets that process's call in ``Assertion.about``
    and no verdict from this model; the command line explores that process for it."""
    script = parse_script(text, path)
    scope = build_scope(script, defines)
    if not scope.processes:
        raise InputError("the model defines no process", path)
    args: tuple = ()
    if process is not None:
        system, args = _process_option(process, scope, path)
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
    own = _call(scope, system, args, d.pos)
    about = tuple("" if call == own else call
                  for call in (_call(scope, a.process, a.args, a.pos) for a in scope.assertions))
    return build_model(scope, system, args, name, numeric, max_procs, about)


def _call(scope, process: str, args: tuple, pos) -> str:
    """The call of ``process`` with ``args`` evaluated, as ``--process`` reads it back
    (``P(3)``, ``Q()``): two calls are the same process when these agree."""
    if process not in scope.processes:
        raise scope.error(f"unknown process '{process}' in #assert", pos)
    params = scope.processes[process].params
    if len(args) != len(params):
        raise scope.error(f"process '{process}' needs {len(params)} argument(s), got {len(args)}", pos)
    values = [scope.constant(a, what=f"an argument of process '{process}'") for a in args]
    return f"{process}({', '.join(map(str, values))})"


_PROCESS_OPTION = re.compile(r"\s*([A-Za-z_]\w*)\s*(\((.*)\))?\s*", re.S)


def _process_option(process: str, scope, path: str) -> tuple[str, tuple]:
    """``--process NAME`` or ``--process 'NAME(args)'``: the system process and its argument
    expressions (read as the arguments of an ``#assert``)."""
    match = _PROCESS_OPTION.fullmatch(process)
    if match is None:
        raise InputError(f"--process {process!r}: expected a process name, or a call such as 'P(1)'", path)
    name = match.group(1)
    if name not in scope.processes:
        known = ", ".join(sorted(scope.processes))
        raise InputError(f"no process named '{name}'; processes: {known}", path)
    if match.group(2) is None:
        return name, ()
    try:
        call = parse_script(f"#assert {name}({match.group(3)}) deadlockfree;", "--process").items
    except InputError as e:
        raise InputError(f"--process {process!r}: the arguments must be expressions ({e.message})",
                         path) from None
    return name, call[0].args


def load(path: str, defines: Mapping[str, int] = {}, process: Optional[str] = None,
         max_procs: Optional[int] = None) -> SequentialModel:
    """Read ``path`` and linearise it (see ``parse_text``)."""
    return parse_text(read_source(path), path, defines, process, max_procs)
