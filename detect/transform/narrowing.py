"""The one narrowing step: a front end's model with its domains settled and narrowed.

Front ends narrow nothing.  They record in the model what narrowing needs to know
(``detect.ir.DomainFacts``): the *unranged* variables, whose domain is a placeholder because
their declared range is too wide to enumerate or absent; the *narrowable* ones, whose domain
is a declared type or range; a *placeholder* value standing for "no value".  Every other
domain is exact.  ``narrow(model, policy)`` then, in order:

1. gives every unranged variable the value set V of the sound value analysis
   (``detect.transform.domains``; unranged variables are its strict ones), which contains
   every value held in a reachable state or written by a step from one, so no write faults
   and the transition system is the source tool's.  The analysis gives up (takes as top)
   each ``provisional`` variable it cannot bound and goes on; those variables get the first
   provisional range and the analysis runs again for the others, until a run gives up none;
   any other unbounded variable refuses the model;
2. gives the provisional variables the values of the reachable states: the model is
   explored with each provisional range in turn, the domains are cut to the values the
   states hold and the steps write (``reachable.exact_restriction``), and a second
   exploration with equal numbers of states, transitions and fault states proves the two
   transition systems equal (``detect.transform.reachable``);
3. replaces the placeholder value by one below every value of the variables it stands
   beside, and refuses an unranged variable of more than the policy's ``span_limit``
   values (a sparse domain is fine: domains are tuples of their values);
4. narrows each narrowable domain D to V ∩ D and replaces reads of process scalars that are
   constant where a summand runs by the constant (``domains.narrow_domains`` says why the
   transition system is unchanged).

The result has no ``DomainFacts`` left, so narrowing it again changes nothing.  ``POLICIES``
holds each language's ``NarrowingPolicy``; ``detect.transform.load`` loads a file and
applies this step, for the command line, the benchmarks and the tests.
"""
from __future__ import annotations

import dataclasses
import re
import warnings
from dataclasses import dataclass
from typing import Mapping, Optional

from detect.errors import InputError
from detect.ir import Const, DomainFacts, SequentialModel, Unranged, validate
from detect.ir.semantics import steps
from detect.ir.walk import substitute, substitute_program
from detect.statespace.explore import Progress, ReachableGraph, reachable_graph, state_bound
from detect.transform.domains import Unbounded, ValueAnalysis, propagate_constants, variable_values
from detect.transform.reachable import NARROWING, counts, exact_restriction

INT16 = (-32768, 32767)
INT19 = (-(1 << 18), (1 << 18) - 1)


@dataclass(frozen=True)
class Wording:
    """The refusals and warning of ``narrow`` as ``str.format`` templates, worded as each
    front end worded them when it narrowed for itself (users and tests know them).

    Fields: ``subject``, ``variable`` (the first provisional variable; a refusal is located
    at its declaration), ``names`` (every provisional variable, quoted), ``reason`` (why the
    analysis could not bound it; ``reason_clause`` without a trailing ``;``), ``lo``/``hi``
    (the provisional range, or the settled domain's ends for ``span``), ``states`` (the
    state limit, or in ``warning`` the reachable states), ``advice`` (what to change when
    the state limit is reached: ``StateBound.advice``), ``before``/``after`` (states,
    transitions, fault states), ``faults``, ``limit``, ``path``, ``shown`` ("0..6" or "5 values
    in 0..9"), ``interval`` ("0..6", or "its initial values" when exploring kept them all).
    ``None``: the policy never refuses that way."""

    unbounded: str
    too_many_states: str
    not_covered: str
    faults: Optional[str]
    outside: Optional[str]
    span: Optional[str]
    warning: str


PROMELA_WORDING = Wording(
    unbounded="{subject} takes unboundedly many values ({reason})",
    too_many_states="{names}: the value analysis bounds no domain ({reason}), and the model has more than "
                    "{states:,} reachable states to take the values from ({advice}); use a narrower type "
                    "(byte, short) or bound the variable with a guard",
    not_covered="{names}: the value analysis bounds no domain, and the values of the reachable states do not "
                "cover the values written during steps; use a narrower type (byte, short) or bound the "
                "variable with a guard",
    faults=None,
    outside="{names}: a reachable value lies outside {lo}..{hi}, more than can be enumerated; use a narrower "
            "type or bound the variable with a guard",
    span="variable '{variable}' holds {count:,} values from {lo} to {hi}: domains of more than {limit:,} values "
         "are not supported",
    warning="{path}: the value analysis cannot bound {variable} ({reason}); its domain ({shown}) was taken "
            "from the {states:,} reachable states",
)

_CSP_REFUSAL = ("variable '{variable}' has no declared range and its values are unbounded ({reason_clause}; "
                "exploring with the range {lo}..{hi}%s); declare one, e.g. var {variable} : {{0..7}} = 0;")
CSP_WORDING = Wording(
    unbounded="{subject} takes unboundedly many values ({reason}); bound it with a guard or a declared range",
    too_many_states=_CSP_REFUSAL % " failed: the model has more than {states:,} reachable states; {advice}",
    not_covered=_CSP_REFUSAL % " failed: the reachable values do not cover the values written during steps "
                               "(states, transitions, fault states: {after} after narrowing, {before} before)",
    faults=_CSP_REFUSAL % ", {faults} reachable states fault",
    outside=None,
    span=None,
    warning="{path}: variable '{variable}' has no declared range; its domain {interval} was taken from the "
            "{states:,} reachable states",
)


@dataclass(frozen=True)
class NarrowingPolicy:
    """The parameters of ``narrow``.  The defaults are Promela's; where another language
    uses another value, the reason is given with the parameter.

    * ``value_limit``: the most values the analysis tracks for one variable; a narrowable
      variable with more keeps its declared domain, an unranged one is unbounded.  DVE: 512,
      because the fixpoint grows a counter such as gear's ``toGear = toGear + dir`` by one
      value per round (512 rounds take 0.6 s, 4096 take 20 s), and a domain of 512 literals
      is already too big to matter for the coloured graph.
    * ``provisional_ranges``: the ranges tried in turn (each cut to the variable's declared
      bounds) when the analysis cannot bound a provisional variable; the next one is tried
      when a reachable step writes outside the current one.  CSP#: ``INT16`` only, since a
      write outside it is a fault and faults refuse (``refuse_faults``).
    * ``provisional_states``: the most reachable states explored per provisional range
      (``--domain-states``, passed to ``narrow`` as ``states``, overrides it), fewer where
      they would exceed the state-slot budget (``explore.state_bound``).
    * ``refuse_faults``: whether any reachable fault under the provisional range refuses
      the model.  CSP#: yes -- its front end lowers PAT's transition system exactly only
      when no step faults.  Promela: no -- faults (failed asserts, bad indices) are Spin's
      too; only a write leaving the provisional range matters, and it tries the next range.
    * ``reachable_scope``: whose domains become their reachable values: ``"provisional"``
      (the provisional variables) or ``"all"``.  CSP#: ``"all"``, as its front end cut every
      domain (program counters, buffers) to the reachable values once it explored anyway.
    * ``reuse_analysis``: step 4 reuses step 1's analysis when steps 2 and 3 changed nothing
      (one fixpoint, not two: Promela models with ``int`` counters take seconds per
      fixpoint).  CSP#: no; its declared ranges are narrowed by a fresh analysis of the
      settled model, whose widening thresholds include the settled domains' ends, so the
      results can differ from step 1's.
    * ``span_limit``: an unranged variable whose settled domain has more values is
      refused; ``None``: not checked (CSP#, whose front end never checked it).
    * ``wording``: the messages (``Wording``).
    """

    value_limit: int = 4096
    provisional_ranges: tuple[tuple[int, int], ...] = (INT16, INT19)
    provisional_states: int = 1_000_000
    refuse_faults: bool = False
    reachable_scope: str = "provisional"
    reuse_analysis: bool = True
    span_limit: Optional[int] = 1 << 22
    wording: Wording = PROMELA_WORDING
    #: whether a settled unranged domain is cut to the variable's declared bounds (Murphi: a
    #: write outside them is an error; the value analysis also gives the values written)
    cut_to_bounds: bool = False


#: Each front end's policy, by the ``language`` its ``DomainFacts`` name.  Murphi records facts
#: only for its subranges of more than 65,536 values; its other domains are exact.
POLICIES: Mapping[str, NarrowingPolicy] = {
    "promela": NarrowingPolicy(),
    # Murphi's subranges of more than 65,536 values: a write outside the declared range is
    # an error, so the values are cut to it (``cut_to_bounds``).
    "murphi": NarrowingPolicy(cut_to_bounds=True),
    "csp": NarrowingPolicy(provisional_ranges=(INT16,), refuse_faults=True, reachable_scope="all",
                           reuse_analysis=False, span_limit=None, wording=CSP_WORDING),
    "dve": NarrowingPolicy(value_limit=512),
}


def narrow(model: SequentialModel, policy: Optional[NarrowingPolicy] = None, states: Optional[int] = None,
           progress: Optional[Progress] = None) -> SequentialModel:
    """``model`` with its domains settled and narrowed (module docstring), by ``policy`` (the
    policy of the language its facts name when not given) with ``states``, when given, as its
    ``provisional_states``.  Refusals are ``InputError``s located at the variable's
    declaration; the warning when domains come from the reachable states is a
    ``UserWarning``.  ``progress(states, transitions, seconds)`` is told how an exploration
    of step 2 goes."""
    facts = model.domains
    if policy is None:
        policy = POLICIES.get(facts.language, NarrowingPolicy())
    if states is not None:
        policy = dataclasses.replace(policy, provisional_states=states)
    unranged = {u.variable: u for u in facts.unranged}
    analysis = None
    if unranged:
        model, analysis, provisional = _settle_unranged(model, unranged, policy)
        if provisional:
            model = _from_reachable(model, provisional, unranged, policy, progress)
            analysis = None
    if facts.placeholder is not None and any(facts.placeholder.value in v.domain for v in model.variables):
        model = _replace_placeholder(model, facts.placeholder.value, facts.placeholder.below)
        analysis = None
    _check_span(model, unranged, policy)
    if facts.narrowable:
        if analysis is None or not policy.reuse_analysis:
            analysis = variable_values(model, policy.value_limit)
        model = propagate_constants(model, analysis)
        variables = []
        for v in model.variables:
            vals = analysis.values[v.name]
            if v.name in facts.narrowable and vals is not None:
                v = dataclasses.replace(v, domain=tuple(x for x in v.domain if x in vals))
            variables.append(v)
        model = dataclasses.replace(model, variables=tuple(variables))
    model = dataclasses.replace(model, domains=DomainFacts())
    validate(model)
    return model


def _settle_unranged(model: SequentialModel, unranged: dict, policy: NarrowingPolicy
                     ) -> tuple[SequentialModel, Optional[ValueAnalysis], dict]:
    """Step 1: ``(model, analysis, provisional)``: the unranged variables the analysis bounds
    get their values, ``analysis`` is the value analysis of every variable (``None`` once a
    provisional range changed the model); ``provisional`` maps the others, in the order
    found, to why the analysis failed."""
    provisional: dict[str, str] = {}
    droppable = frozenset(name for name, fact in unranged.items() if fact.provisional)
    current = model
    while True:
        strict = frozenset(name for name in unranged if name not in provisional)
        if not strict:
            return current, None, provisional
        try:
            analysis = variable_values(current, policy.value_limit, strict=strict, droppable=droppable & strict)
        except Unbounded as e:
            fact = unranged[e.variable]
            raise _refusal(policy.wording.unbounded, fact, subject=fact.subject, reason=e.reason) from None
        # Giving a variable up lets one analysis find every provisional variable it cannot bound
        # (a chain t -> day -> held costs one fixpoint, not one each).  The values it computed
        # with them as top are sound for the model with their provisional ranges but coarser
        # than a fresh analysis of it, so that analysis is run next, until one gives up nothing
        # -- unless step 2 cuts every domain to the reachable values anyway: then sound
        # domains for the exploration are all it needs.
        dropped = analysis.fixpoint.dropped
        provisional.update(dropped)
        if dropped:
            current = _with_range(current, set(dropped), policy.provisional_ranges[0], unranged)
        if not dropped or policy.reachable_scope == "all":
            break
    settled = strict - provisional.keys()

    def settled_domain(v) -> tuple[int, ...]:
        values = analysis.values[v.name]
        bounds = unranged[v.name].bounds
        if policy.cut_to_bounds and bounds is not None:
            values = {x for x in values if bounds[0] <= x <= bounds[1]} | set(v.domain)
        return tuple(sorted(values))

    current = dataclasses.replace(current, variables=tuple(
        dataclasses.replace(v, domain=settled_domain(v)) if v.name in settled else v
        for v in current.variables))
    if provisional:
        return current, None, provisional
    return current, analysis, provisional


def _with_range(model: SequentialModel, names, bounds: tuple[int, int], unranged: dict) -> SequentialModel:
    """``model`` with ``bounds`` (cut to each variable's declared bounds) added to the domains
    of ``names``."""
    variables = []
    for v in model.variables:
        if v.name in names:
            lo, hi = bounds
            declared = unranged[v.name].bounds
            if declared is not None:
                lo, hi = max(lo, declared[0]), min(hi, declared[1])
            v = dataclasses.replace(v, domain=tuple(sorted(set(range(lo, hi + 1)) | set(v.domain))))
        variables.append(v)
    return dataclasses.replace(model, variables=tuple(variables))


def _from_reachable(model: SequentialModel, provisional: dict, unranged: dict,
                    policy: NarrowingPolicy, progress: Optional[Progress] = None) -> SequentialModel:
    """Step 2 (module docstring) for the ``provisional`` variables of ``model``."""
    wording = policy.wording
    first_name = next(iter(provisional))
    fact = unranged[first_name]
    # (the states of a model with many slots are bounded by memory too: ``state_bound``)
    limit = state_bound(model, policy.provisional_states)
    bound = limit.states
    fields = dict(names=", ".join(f"'{name}'" for name in provisional), variable=first_name,
                  reason=provisional[first_name], reason_clause=provisional[first_name].rstrip(";"),
                  states=bound, advice=limit.advice("--domain-states", NARROWING))
    scope = None if policy.reachable_scope == "all" else frozenset(provisional)
    for lo, hi in policy.provisional_ranges:
        trial = _with_range(model, provisional, (lo, hi), unranged)
        first = reachable_graph(trial, max_states=bound, progress=progress)
        if not first.complete:
            raise _refusal(wording.too_many_states, fact, **fields, lo=lo, hi=hi)
        if not policy.refuse_faults and _leaves_range(trial, first, provisional,
                                                      unranged if policy.cut_to_bounds else None):
            continue
        smaller, narrowed, second = exact_restriction(trial, first, bound, scope, progress)
        before, after = counts(first), counts(second)
        if before != after:
            raise _refusal(wording.not_covered, fact, **fields, lo=lo, hi=hi, before=before, after=after)
        if policy.refuse_faults and first.faults:
            raise _refusal(wording.faults, fact, **fields, lo=lo, hi=hi, faults=len(first.faults))
        placeholder = model.domains.placeholder
        _warn_reachable(smaller, provisional, unranged, dict((n, vals) for n, _, vals in narrowed),
                        len(first.states), wording, None if placeholder is None else placeholder.value)
        return smaller
    lo, hi = policy.provisional_ranges[-1]
    raise _refusal(wording.outside, fact, **fields, lo=lo, hi=hi)


def _warn_reachable(model: SequentialModel, provisional: dict, unranged: dict, narrowed: dict,
                    states: int, wording: Wording, placeholder: Optional[int] = None) -> None:
    """One warning per provisional variable, in declaration order: its domain came from the
    reachable states.  The ``placeholder`` ("no value", replaced by step 3) is not shown."""
    for v in model.variables:
        if v.name not in provisional:
            continue
        d = tuple(x for x in v.domain if x != placeholder) or v.domain
        shown = (f"{d[0]}..{d[-1]}" if len(d) == d[-1] - d[0] + 1 else f"{len(d)} values in {d[0]}..{d[-1]}")
        cut = tuple(x for x in narrowed.get(v.name, ()) if x != placeholder)
        interval = f"{cut[0]}..{cut[-1]}" if cut else "its initial values"
        warnings.warn(wording.warning.format(path=unranged[v.name].path, variable=v.name,
                                             reason=provisional[v.name], shown=shown, interval=interval,
                                             states=states), stacklevel=4)


_OUTSIDE = re.compile(r"value (-?\d+) written to ([^\s\[]+)(\[\d+\])? is outside its domain")


def _leaves_range(model: SequentialModel, graph: ReachableGraph, provisional: dict,
                  declared: Optional[dict] = None) -> bool:
    """Some reachable step writes a provisional variable outside its provisional range (with
    ``declared``, the unranged facts: inside its declared bounds -- a write outside them is
    the model's own error, Murphi's)."""
    for k in sorted(graph.faults):
        for step in steps(model, graph.states[k]):
            m = _OUTSIDE.search(step.fault or "")
            if m and m.group(2) in provisional:
                bounds = declared[m.group(2)].bounds if declared is not None else None
                if bounds is None or bounds[0] <= int(m.group(1)) <= bounds[1]:
                    return True
    return False


def _replace_placeholder(model: SequentialModel, placeholder: int, below: frozenset) -> SequentialModel:
    """Step 3: ``placeholder`` replaced everywhere (domains, initial values, guards, events,
    programs) by one less than the smallest other value the variables ``below`` hold."""
    real = {x for v in model.variables if v.name in below for x in v.domain if x != placeholder}
    none = min(real, default=0) - 1
    values = {Const(placeholder): Const(none)}

    def value(x: int) -> int:
        return none if x == placeholder else x

    variables = tuple(
        dataclasses.replace(v, domain=tuple(sorted({value(x) for x in v.domain})),
                            init=tuple(tuple(sorted({value(x) for x in a})) for a in v.init))
        for v in model.variables)
    summands = tuple(dataclasses.replace(
        s, guard=substitute(s.guard, values), program=substitute_program(s.program, values),
        event=dataclasses.replace(s.event, args=tuple(substitute(a, values) for a in s.event.args)))
        for s in model.summands)
    initial = None if model.initial is None else tuple(sorted({
        tuple(value(x) for x in state) for state in model.initial}))
    return dataclasses.replace(model, variables=variables, summands=summands, initial=initial)


def _check_span(model: SequentialModel, unranged: dict, policy: NarrowingPolicy) -> None:
    if policy.span_limit is None:
        return
    for v in model.variables:
        # The values are counted, not the span: a sparse domain (the factorials up to 12!
        # of Book_1991/p248.pml, 13 values up to 479,001,600; INT_MAX + 1 wrapping to
        # INT_MIN) is a tuple of its values, tested by a set literal or a switch.
        if v.name in unranged and len(v.domain) > policy.span_limit:
            raise _refusal(policy.wording.span, unranged[v.name], variable=v.name, lo=v.domain[0],
                           hi=v.domain[-1], limit=policy.span_limit, count=len(v.domain))


def _refusal(template: str, fact: Unranged, **fields) -> InputError:
    return InputError(template.format(**fields), fact.path, fact.line, fact.column)
