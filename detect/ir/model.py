"""The sequential-model IR every front end produces and every later stage consumes.

A ``SequentialModel`` is a guarded, nondeterministic sequential program (seed 002,
section IV-A): finite-domain global variables, an initial condition, and summands
``sum locals . [guard] event {program}``.  Its LTS is:

* a *state* is a tuple of ints, one slot per scalar global and one per array element,
  laid out in declaration order (``state_slots``);
* the *initial states* are all valuations with ``slot value in variable.init[k]`` for every
  slot ``k`` (several allowed values encode PAT's ``= *`` and front ends' "any value"), or,
  where ``SequentialModel.initial`` lists states, exactly those (a subset of that product:
  Murphi's start states inside rulesets need not be a product);
* a summand is enabled in state ``s`` under an assignment of its locals when ``guard`` is
  true; running ``program`` from ``s`` gives the successor.

Values are ints; booleans are 0/1.  ``/`` truncates toward zero and ``%`` takes the sign of
the dividend (C, C#, Promela and DVE agree).  A run-time fault -- an array index out of
bounds, division by zero, a value written outside a variable's domain, a failed
``Assert`` or a ``While`` exceeding ``loop_bound`` iterations -- is an *error*: the explorer
reports it and the CSP treats that summand instance as having no successor.  An error that is
a bound of ours (``Assert.bound``, ``SequentialModel.loop_option``: a ``ToolBound``) cuts the
step the same way, but says the run is undecided, not that the model is wrong.

Invariants (checked by ``validate``): names are unique across globals, and locals do not
shadow globals; array indices are expressions, arrays are one-dimensional (front ends
flatten), every domain is a non-empty sorted tuple of distinct ints, and every initial value
lies inside its domain.  Process instances (``SequentialModel.processes``) are distinct, own
distinct slots, and are what ``Variable.owner`` and ``Summand.owners`` name (see
``_check_processes``).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterator, Optional, Union

# ---------------------------------------------------------------------------- expressions

UNARY_OPS = ("-", "!")
#: Binary operators.  ``&&``/``||`` are logical (0/1 result); ``min``/``max`` are ordinary
#: two-argument functions; ``&``, ``|``, ``^``, ``<<``, ``>>`` are C's bitwise operators.
BINARY_OPS = (
    "+", "-", "*", "/", "%",
    "==", "!=", "<", "<=", ">", ">=",
    "&&", "||",
    "min", "max",
    "&", "|", "^", "<<", ">>",
)


class _CachedHash:
    """A node's hash, computed once: the generated hash of a frozen dataclass walks the
    whole subtree each time, and expressions are dict keys throughout (constraint tables,
    memo tables), so deep ones cost their size per lookup.  The cached value is no field
    (equality ignores it) and is never pickled (another process may hash strings apart)."""

    def __hash__(self) -> int:
        try:
            return self.__dict__["_hash"]
        except KeyError:
            h = hash(self._key())
            self.__dict__["_hash"] = h  # frozen: set past the dataclass's __setattr__
            return h

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Name:
    """A global scalar, a summand local, or a temporary assigned inside a program."""

    name: str


@dataclass(frozen=True)
class Index(_CachedHash):
    """Element ``array[index]`` of a one-dimensional global array."""

    array: str
    index: "Expr"

    def _key(self) -> tuple:
        return ("Index", self.array, self.index)

    __hash__ = _CachedHash.__hash__


@dataclass(frozen=True)
class Unary(_CachedHash):
    op: str
    operand: "Expr"

    def _key(self) -> tuple:
        return ("Unary", self.op, self.operand)

    __hash__ = _CachedHash.__hash__


@dataclass(frozen=True)
class Binary(_CachedHash):
    op: str
    left: "Expr"
    right: "Expr"

    def _key(self) -> tuple:
        return ("Binary", self.op, self.left, self.right)

    __hash__ = _CachedHash.__hash__


@dataclass(frozen=True)
class Ite(_CachedHash):
    """``cond ? then : else_``."""

    cond: "Expr"
    then: "Expr"
    else_: "Expr"

    def _key(self) -> tuple:
        return ("Ite", self.cond, self.then, self.else_)

    __hash__ = _CachedHash.__hash__


Expr = Union[Const, Name, Index, Unary, Binary, Ite]

TRUE = Const(1)
FALSE = Const(0)

# ---------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Assign:
    """``target := value``; a ``Name`` target that is no global is a program temporary."""

    target: Union[Name, Index]
    value: Expr


@dataclass(frozen=True)
class If:
    cond: Expr
    then: tuple["Stmt", ...]
    else_: tuple["Stmt", ...] = ()


@dataclass(frozen=True)
class While:
    """Runs ``body`` while ``cond``; more than ``SequentialModel.loop_bound`` rounds is an error."""

    cond: Expr
    body: tuple["Stmt", ...]


#: The most rounds ``explore`` lets a ``While`` run by itself (``ToolBound.most``): the
#: detection unrolls every loop that far, so larger bounds are the user's to ask for.
LOOP_MOST = 4096


@dataclass(frozen=True)
class ToolBound:
    """A bound of ours, not the model's nor the modelled tool's: the option ``option`` set
    to ``value`` (``--max-procs 8``).  Reaching it is no violation but an undecided run: the
    explorer cuts the step there, and a larger value may decide."""

    option: str
    value: int
    #: The largest value ``explore`` raises the option to by itself when the user gave none
    #: (doubling, a rerun each time); past it the user must give it.
    most: int = 0

    def __str__(self) -> str:
        return f"{self.option} {self.value}"

    def raised(self) -> Optional[int]:
        """The value an automatic rerun tries next (None: ``most`` reached)."""
        return min(2 * self.value, self.most) if self.value < self.most else None


@dataclass(frozen=True)
class Assert:
    """An error when ``cond`` is false (Promela ``assert``, DVE ``assert``).  With ``bound``
    the error is that a bound of ours was reached (``ToolBound``), not the model's fault: the
    step still has no successor, but the run is undecided rather than violated."""

    cond: Expr
    text: str = ""
    bound: Optional[ToolBound] = None


Stmt = Union[Assign, If, While, Assert]

# ---------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Variable:
    """A global: a scalar (``size is None``) or a one-dimensional array of ``size`` elements.

    ``init[k]`` is the tuple of allowed initial values of element ``k`` (a scalar has one
    element).  ``owner`` names the process instance a variable belongs to (its program
    counter or a local), for separately declared processes; ``None`` for shared data.
    ``hidden`` marks PAT's ``hvar`` (kept in the state; shown differently).
    ``value_names`` gives the source's names of some values (``(value, name)`` pairs: enum
    constants, process states), used only to show values; the semantics is the integers.
    """

    name: str
    domain: tuple[int, ...]
    init: tuple[tuple[int, ...], ...]
    size: int | None = None
    owner: str | None = None
    hidden: bool = False
    value_names: tuple[tuple[int, str], ...] = ()

    @property
    def length(self) -> int:
        return 1 if self.size is None else self.size

    def show_value(self, value: int) -> str:
        """``value`` as the source names it (the number when it has no name)."""
        return _show_value(self.value_names, value)

    def element_name(self, k: int) -> str:
        return self.name if self.size is None else f"{self.name}[{k}]"


@dataclass(frozen=True)
class Local:
    """A variable bound by ``sum``: the summand is enabled for each of its values."""

    name: str
    domain: tuple[int, ...]


@dataclass(frozen=True)
class Event:
    """Event label ``name.arg0.arg1...``; args are expressions over locals and globals."""

    name: str
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class SourceLocation:
    """A place in the source: ``file``, 1-based ``line`` and ``column`` (0 when unknown), and
    ``text``, how the front end names the place in messages (``a.csp:12``, ``user[2] line
    14``, ``m.m:30: rule "Try"``); the text is for people, nothing reads it back."""

    file: str = ""
    line: int = 0
    column: int = 0
    text: str = ""


@dataclass(frozen=True)
class Origin:
    """Where a summand comes from: the location of each process step it combines (one for a
    step of one process; the sender first for a hand-shake), shown joined by ``joiner``, the
    language's way of writing a joint step (``,`` CSP#, ``&`` DVE, ``!`` Promela)."""

    locations: tuple[SourceLocation, ...] = ()
    joiner: str = ","

    @classmethod
    def at(cls, file: str = "", line: int = 0, column: int = 0, text: str = "") -> "Origin":
        """The origin of a step of one process."""
        return cls((SourceLocation(file, line, column, text),))

    def __str__(self) -> str:
        return self.joiner.join(loc.text for loc in self.locations)

    def first(self) -> SourceLocation:
        """The first location (the sender's for a hand-shake); an empty one when unknown."""
        return self.locations[0] if self.locations else SourceLocation()


@dataclass(frozen=True)
class Summand:
    """``sum locals . [guard] event {program}``.

    ``owners`` names the process instances taking part (``Process.name``; empty for an
    indexed family, whose process is the value of a local); ``origin`` says where in the
    source it comes from.
    """

    locals: tuple[Local, ...]
    guard: Expr
    event: Event
    program: tuple[Stmt, ...]
    origin: Origin = Origin()
    owners: tuple[str, ...] = ()

    def where(self, index: int) -> str:
        """How messages name this summand: its origin, or ``summand <index>`` without one."""
        return str(self.origin) or f"summand {index}"


@dataclass(frozen=True)
class Process:
    """One process instance of the model, as the front end created it.

    ``name`` is how the source names the instance (``user[2]``, ``P_0``, ``Phil(3)``): what
    ``Variable.owner`` and ``Summand.owners`` say.  ``family`` is the definition it
    instantiates (a proctype, a CSP# process; a DVE process is its own), ``index`` its
    position among the family's instances (for a CSP# family, the element of the family's
    arrays that holds its state).  ``pid`` is the number the model's own data uses for it
    (Promela's ``_pid``, the value of a CSP# family's index variable, the number BEEM puts
    in a DVE process name), ``None`` when the model has none.  ``slots`` is the state it
    owns: ``(variable, element)`` pairs, element 0 for a scalar.
    """

    name: str
    family: str
    index: int
    pid: int | None = None
    slots: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Assertion:
    """A property kept for the explorer: ``deadlockfree``, ``reaches``, ``invariant``,
    ``liveness`` (Rumur's: from every reachable state some state satisfying ``condition`` is
    reachable) or ``cover`` (Rumur's ``Cover`` statement, ``probe``); the last two are decided
    on the whole graph after the exploration (``detect.checking.liveness``).

    A ``reaches`` with an ``objective`` (PAT's ``reaches cond with min(e)`` / ``max(e)``;
    ``sense`` is ``"min"`` or ``"max"``) also asks for the least / greatest value of the
    objective over the reachable states where the condition holds.

    ``about`` is empty when the property is about this model; else it names the process it
    is about, as the front end reads it back (CSP#: ``#assert Q() deadlockfree;`` in a model
    linearised for ``P()`` says ``"Q()"``).  Such a property has no verdict here (its
    ``condition`` and ``objective`` are None): only an exploration of that process can give one."""

    kind: str
    text: str
    condition: Expr | None = None
    objective: Expr | None = None
    sense: str | None = None
    about: str = ""
    #: for ``kind`` ``"ltl"``: the formula and its propositions (None when not checkable here)
    temporal: Optional["TemporalProperty"] = None
    #: for ``kind`` ``"cover"`` (Rumur's ``Cover`` statement): where it is hit (after
    #: ``temporal``: front ends give that one by position)
    probe: Optional["CoverProbe"] = None


@dataclass(frozen=True)
class CoverProbe:
    """Where Rumur's ``Cover`` statement is hit (an ``Assertion`` of kind ``"cover"``: it holds
    when it is hit; one never hit is Rumur's error "cover ... not hit").  ``summands`` are
    copies of the model's summands that run the statement, in which it is ``Assert(!cond,
    mark)``: the statement is hit when, from a reachable state, a step of one of them faults
    with ``mark`` (the model's own summands run it as nothing, so the state space is the
    same).  ``at_start``: a start state already ran it with its condition true."""

    summands: tuple[Summand, ...]
    mark: str
    at_start: bool = False


@dataclass(frozen=True)
class Assumption:
    """Rumur's global ``Assume``: a state where ``condition`` is false (or evaluating it
    faults) is no state of the transition system.  An initial state there is dropped, and so
    is a step's target there -- but the step still counts as one for the deadlock check
    (Rumur's verifier decides a state is not deadlocked when a rule changed it, before it
    checks the assumptions of the result)."""

    condition: Expr
    text: str = ""


@dataclass(frozen=True)
class Proposition:
    """An atomic proposition of an LTL formula, as the source writes it (``text``).

    An event proposition (``event`` set) holds at a state reached by a step whose event is
    ``event`` with argument values ``args`` (PAT: "the event just performed"); a state
    proposition (``condition`` set) holds where the condition does."""

    text: str
    event: Optional[str] = None
    args: tuple[int, ...] = ()
    condition: Optional[Expr] = None


@dataclass(frozen=True)
class TemporalProperty:
    """``formula`` as nested tuples (``detect.checking.buchi``) over ``("ap", k)`` naming
    ``propositions[k]``."""

    formula: tuple
    propositions: tuple[Proposition, ...]


@dataclass(frozen=True)
class Unranged:
    """A variable whose declared range is too wide to enumerate (Promela's ``int``), or that
    has none (PAT's ``var x = 0;``, CSP#'s stored process parameters and channel buffers).
    Until ``detect.transform.narrowing`` settles it, its domain in the model is a placeholder
    holding its initial values; the IR's domain checks enumerate ``lo..hi``, so it cannot
    be given ``bounds`` instead.

    ``bounds`` is the declared type's range (``None``: no declared range); ``provisional``
    says whether, when the value analysis cannot bound it, its domain may be taken from the
    states reachable under a provisional range (user variables: yes; values the front end
    introduced, which the user cannot declare a range for: no).  ``subject`` is how a
    refusal names it ("variable 'x'", "buffer of channel 'c'"), and ``path``, ``line``,
    ``column`` where (line 0: the file as a whole)."""

    variable: str
    bounds: tuple[int, int] | None
    provisional: bool
    subject: str
    path: str
    line: int = 0
    column: int = 0


@dataclass(frozen=True)
class Placeholder:
    """A constant ``value`` that stands for "no value" (CSP#'s dead stored parameter or empty
    buffer slot) until the domains are known: it then becomes one less than the smallest
    value the variables ``below`` can hold, so that it never coincides with a process id or
    a data value (a fixed 0 would single out process 0)."""

    value: int
    below: frozenset[str]


@dataclass(frozen=True)
class DomainFacts:
    """What a front end knows about its model's domains, for ``detect.transform.narrowing``.

    ``language`` names the front end (it picks the narrowing policy); ``unranged`` lists the
    variables with placeholder domains; ``narrowable`` names the variables whose domain is a
    declared type or range, which the value analysis may shrink to the values they can hold
    (a write outside the domain faults either way); every other domain is exact and kept.
    The default, no facts, leaves a model as it is (hand-built models, Murphi)."""

    language: str = ""
    unranged: tuple[Unranged, ...] = ()
    narrowable: frozenset[str] = frozenset()
    placeholder: Placeholder | None = None


@dataclass(frozen=True)
class WeakFairness:
    """What weak fairness (Spin's ``pan -f``) needs to know of a product with a never claim,
    as the annotation ``("weak_fairness", ...)`` (``detect.checking.cycles``).

    ``system_turn`` holds where a process is to move (not the claim); ``counted`` where pan
    starts and closes a fairness round (the system's turn, no process holds atomic control,
    the claim's last move was not a stutter move); ``atomic_free`` where no process holds
    atomic control.  ``processes`` names the processes that must be served (the claim is
    not one).  ``timeout``: where ``timeout`` holds
    (no process can move without it; pan first tries every process without it).  ``non_progress``:
    pan compiled with ``-DNP`` (no "default move" when every process is blocked)."""

    system_turn: Expr
    counted: Expr
    atomic_free: Expr
    processes: tuple[str, ...]
    timeout: Expr = Const(0)
    non_progress: bool = False


@dataclass(frozen=True)
class SequentialModel:
    """The whole linearised model; ``parameters`` are the ``#define`` values used."""

    name: str
    variables: tuple[Variable, ...]
    summands: tuple[Summand, ...]
    assertions: tuple[Assertion, ...] = ()
    parameters: tuple[tuple[str, int], ...] = ()
    source: str = ""
    loop_bound: int = 256
    #: The option that sets ``loop_bound`` when it is a bound of ours (a ``While`` past it is
    #: then a ``ToolBound``, no violation: Spin and PAT run loops unbounded); "" when the
    #: modelled tool has the same bound (CMurphi's ``-loop``): past it is the model's error.
    loop_option: str = "--loop-max"
    #: States satisfying ``terminal`` are valid end states (PAT's terminated processes,
    #: Spin's valid end states), not deadlocks, when they have no successor.
    terminal: Expr | None = None
    #: Event names are part of the behaviour (PAT's CSP#: traces, refinement and LTL over
    #: events), so a symmetry must map each step to a step with the same event name.  False
    #: where a front end makes event names up (Promela lines, Murphi rule names).
    observable_events: bool = False
    #: What narrowing needs to know (``DomainFacts``); a narrowed model has none left.
    domains: DomainFacts = DomainFacts()
    #: Language facts later stages may use, as ``(key, value)`` pairs of hashable values
    #: (Promela: ``("spin_stored", condition)``, the states Spin stores).
    annotations: tuple[tuple[str, object], ...] = ()
    #: The process instances, in the order the front end created them; empty for models
    #: without processes (Murphi's rules, models built by hand).
    processes: tuple[Process, ...] = ()
    #: Literals the model's properties single out, as ``(variable, element, value, mark)``:
    #: ``variable[element] = value`` carries ``mark`` (Promela's labels: ``"end"`` a valid
    #: end location, ``"accept"``, ``"progress"``).  A symmetry maps every literal to one
    #: with the same marks: the coloured graph colours literals by them and ``--verify``
    #: checks it (``literal_marks``).
    marks: tuple[tuple[str, int, int, str], ...] = ()
    #: A state whose every successor is the state itself is a deadlock too (CMurphi and
    #: Rumur: "no rule changes the state"); otherwise only a state without successors is.
    stutter_deadlock: bool = False
    #: The initial states listed one by one (sorted, distinct, each inside the product of the
    #: per-slot ``init`` sets, which are then the per-slot unions of these states); ``None``:
    #: every state of that product.  Analyses that read only ``init`` over-approximate.
    initial: tuple[tuple[int, ...], ...] | None = None
    #: Rumur's global assumptions (``Assumption``): the states violating one are discarded.
    assumptions: tuple["Assumption", ...] = ()

    @property
    def loop_tool_bound(self) -> Optional[ToolBound]:
        """The ``ToolBound`` a ``While`` past ``loop_bound`` reaches (None: the model's error)."""
        return ToolBound(self.loop_option, self.loop_bound, LOOP_MOST) if self.loop_option else None

    def annotation(self, key: str, default: object = None) -> object:
        """The value annotated under ``key`` (``default`` when there is none)."""
        return dict(self.annotations).get(key, default)

    def variable(self, name: str) -> Variable:
        for v in self.variables:
            if v.name == name:
                return v
        raise KeyError(name)


@dataclass(frozen=True)
class Slot:
    """One state component: element ``index`` of ``variable`` (``index`` 0 for scalars)."""

    variable: str
    index: int
    domain: tuple[int, ...]
    label: str
    value_names: tuple[tuple[int, str], ...] = ()

    def show_value(self, value: int) -> str:
        """``value`` as the source names it (the number when it has no name)."""
        return _show_value(self.value_names, value)


def _show_value(names: tuple[tuple[int, str], ...], value: int) -> str:
    for v, name in names:
        if v == value:
            return name
    return str(value)


def initial_states(model: SequentialModel) -> Iterator[tuple[int, ...]]:
    """Every initial state: ``model.initial`` when it lists them, else the product of the
    per-slot ``init`` sets in lexicographic order."""
    if model.initial is not None:
        return iter(model.initial)
    return itertools.product(*(allowed for v in model.variables for allowed in v.init))


def state_slots(model: SequentialModel) -> tuple[Slot, ...]:
    """The state layout: scalars and array elements in declaration order."""
    slots = []
    for v in model.variables:
        for k in range(v.length):
            slots.append(Slot(v.name, k, v.domain, v.element_name(k), v.value_names))
    return tuple(slots)


def slot_offsets(model: SequentialModel) -> dict[str, int]:
    """Position of each variable's first slot in the state tuple."""
    offsets, pos = {}, 0
    for v in model.variables:
        offsets[v.name] = pos
        pos += v.length
    return offsets


def literal_marks(model: SequentialModel) -> dict[tuple[int, int], str]:
    """``(slot, value)`` -> the literal's marks (``SequentialModel.marks``), sorted and
    joined by commas; only literals the state layout has (a narrowed domain drops some)."""
    offsets = slot_offsets(model)
    variables = {v.name: v for v in model.variables}
    found: dict[tuple[int, int], set[str]] = {}
    for name, element, value, mark in model.marks:
        v = variables.get(name)
        if v is not None and element < v.length and value in v.domain:
            found.setdefault((offsets[name] + element, value), set()).add(mark)
    return {literal: ",".join(sorted(marks)) for literal, marks in found.items()}


def literal_label(slot: Slot, value: int) -> str:
    """The literal ``var[idx]=value`` (``var=value`` for scalars), the value as the source
    names it."""
    return f"{slot.label}={slot.show_value(value)}"


def left_spine(e: Binary) -> list[Expr]:
    """Operands of the left-nested chain ``((a op b) op c) op d`` -> ``[a, b, c, d]``."""
    operands = [e.right]
    node: Expr = e.left
    while isinstance(node, Binary) and node.op == e.op:
        operands.append(node.right)
        node = node.left
    operands.append(node)
    operands.reverse()
    return operands


# ---------------------------------------------------------------------------- validation


class ModelError(ValueError):
    """A model violates an IR invariant (a front-end bug or an unsupported construct)."""


def validate(model: SequentialModel) -> None:
    """Raise ``ModelError`` unless ``model`` satisfies the invariants in the module docstring."""
    names: set[str] = set()
    arrays: set[str] = set()
    for v in model.variables:
        if v.name in names:
            raise ModelError(f"variable {v.name!r} declared twice")
        names.add(v.name)
        if v.size is not None:
            arrays.add(v.name)
            if v.size <= 0:
                raise ModelError(f"array {v.name!r} has size {v.size}")
        _check_domain(v.name, v.domain)
        if len(v.init) != v.length:
            raise ModelError(f"{v.name!r}: {len(v.init)} initial sets for {v.length} elements")
        dom = set(v.domain)
        if len({value for value, _ in v.value_names}) != len(v.value_names):
            raise ModelError(f"{v.name!r}: a value is named twice in {v.value_names}")
        for k, allowed in enumerate(v.init):
            if not allowed or not set(allowed) <= dom:
                raise ModelError(
                    f"initial value of {v.element_name(k)} {allowed} outside its domain "
                    f"{_show_domain(v.domain)}"
                )
    if model.initial is not None:
        _check_initial(model)
    _check_processes(model)
    # ids of the subexpressions checked: guards share large parts (a Promela model's
    # ``timeout``), each checked once (the model keeps them alive, so ids are not reused)
    checked: set[int] = set()
    for i, s in enumerate(model.summands):
        where = s.where(i)
        local_names = set()
        for loc in s.locals:
            if loc.name in names:
                raise ModelError(f"{where}: local {loc.name!r} shadows a global")
            if loc.name in local_names:
                raise ModelError(f"{where}: local {loc.name!r} bound twice")
            local_names.add(loc.name)
            _check_domain(loc.name, loc.domain)
        for e in _summand_exprs(s):
            _check_expr(e, arrays, where, checked)
    for a in model.assumptions:
        _check_expr(a.condition, arrays, "an assumption", checked)


def _check_initial(model: SequentialModel) -> None:
    per_slot = [allowed for v in model.variables for allowed in v.init]
    states = model.initial
    if not states or list(states) != sorted(set(states)):
        raise ModelError("the listed initial states are not a non-empty sorted set")
    for state in states:
        if len(state) != len(per_slot) or any(x not in a for x, a in zip(state, per_slot)):
            raise ModelError(f"initial state {state} outside the per-slot initial sets")
    for k, allowed in enumerate(per_slot):
        if set(allowed) != {state[k] for state in states}:
            raise ModelError(f"slot {k}: initial set {allowed} is not the values the listed states hold")


def _check_processes(model: SequentialModel) -> None:
    """The process invariants: instances are distinct ``(family, index)`` pairs and own
    distinct existing slots; when there are processes, every ``Variable.owner`` names exactly
    one of them, which owns all the variable's slots, and every ``Summand.owners`` entry
    names one.  (A name may repeat -- CSP#'s ``P() ||| P()`` -- where no variable uses it.)"""
    if not model.processes:
        return
    lengths = {v.name: v.length for v in model.variables}
    instances: set[tuple[str, int]] = set()
    owned_by: dict[tuple[str, int], str] = {}
    by_name: dict[str, list[Process]] = {}
    for p in model.processes:
        if (p.family, p.index) in instances:
            raise ModelError(f"process {p.family} instance {p.index} declared twice")
        instances.add((p.family, p.index))
        by_name.setdefault(p.name, []).append(p)
        for slot in p.slots:
            variable, element = slot
            if not 0 <= element < lengths.get(variable, 0):
                raise ModelError(f"process {p.name!r} owns {variable}[{element}], which is no state slot")
            if slot in owned_by:
                raise ModelError(f"{variable}[{element}] owned by both {owned_by[slot]!r} and {p.name!r}")
            owned_by[slot] = p.name
    for v in model.variables:
        if v.owner is None:
            continue
        named = by_name.get(v.owner, [])
        if len(named) != 1:
            raise ModelError(f"{v.name!r}: owner {v.owner!r} names {len(named)} processes, not one")
        if any(owned_by.get((v.name, k)) != v.owner for k in range(v.length)):
            raise ModelError(f"{v.name!r} belongs to {v.owner!r} but that process does not own its slots")
    for i, s in enumerate(model.summands):
        for owner in s.owners:
            if owner not in by_name:
                raise ModelError(f"{s.where(i)}: owner {owner!r} is no process")


def _summand_exprs(s: Summand):
    """Every expression of a summand, element targets included (their array is checked)."""
    from detect.ir.walk import program_expressions, statements  # walk builds on this module

    yield s.guard
    yield from s.event.args
    yield from (st.target for st in statements(s.program)
                if isinstance(st, Assign) and isinstance(st.target, Index))
    yield from program_expressions(s.program)


def _check_expr(e: Expr, arrays: set[str], where: str, checked: set[int]) -> None:
    from detect.ir.walk import children

    stack = [e]
    while stack:
        x = stack.pop()
        if id(x) in checked:
            continue
        checked.add(id(x))
        stack.extend(children(x))
        if isinstance(x, Name) and x.name in arrays:
            raise ModelError(f"{where}: array {x.name!r} used without an index")
        if isinstance(x, Index) and x.array not in arrays:
            raise ModelError(f"{where}: {x.array!r} indexed but is not an array")
        if isinstance(x, Unary) and x.op not in UNARY_OPS:
            raise ModelError(f"{where}: unknown unary operator {x.op!r}")
        if isinstance(x, Binary) and x.op not in BINARY_OPS:
            raise ModelError(f"{where}: unknown binary operator {x.op!r}")
        if not isinstance(x, (Const, Name, Index, Unary, Binary, Ite)):
            raise ModelError(f"{where}: unknown expression {x!r}")


def _check_domain(name: str, domain: tuple[int, ...]) -> None:
    if not domain or list(domain) != sorted(set(domain)):
        raise ModelError(f"{name!r}: domain must be a non-empty sorted tuple of distinct ints")


def _show_domain(domain: tuple[int, ...]) -> str:
    if len(domain) == domain[-1] - domain[0] + 1:  # sorted and distinct: an interval
        return f"{{{domain[0]}..{domain[-1]}}}"
    return "{" + ", ".join(map(str, domain)) + "}"


def show_domain(domain: tuple[int, ...]) -> str:
    """``{0..3}`` for an interval, ``{0, 2, 5}`` otherwise."""
    return _show_domain(domain)


__all__ = [
    "WeakFairness",
    "UNARY_OPS",
    "BINARY_OPS",
    "Const",
    "Name",
    "Index",
    "Unary",
    "Binary",
    "Ite",
    "Expr",
    "TRUE",
    "FALSE",
    "Assign",
    "If",
    "While",
    "Assert",
    "ToolBound",
    "Stmt",
    "Variable",
    "Local",
    "Event",
    "SourceLocation",
    "Origin",
    "Summand",
    "Process",
    "Assertion",
    "Assumption",
    "CoverProbe",
    "Proposition",
    "TemporalProperty",
    "Unranged",
    "Placeholder",
    "DomainFacts",
    "SequentialModel",
    "Slot",
    "state_slots",
    "slot_offsets",
    "literal_label",
    "literal_marks",
    "left_spine",
    "ModelError",
    "validate",
    "show_domain",
]
