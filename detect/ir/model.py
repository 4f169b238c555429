"""The sequential-model IR every front end produces and every later stage consumes.

A ``SequentialModel`` is a guarded, nondeterministic sequential program (seed 002,
section IV-A): finite-domain global variables, an initial condition, and summands
``sum locals . [guard] event {program}``.  Its LTS is:

* a *state* is a tuple of ints, one slot per scalar global and one per array element,
  laid out in declaration order (``state_slots``);
* the *initial states* are all valuations with ``slot value in variable.init[k]`` for every
  slot ``k`` (several allowed values encode PAT's ``= *`` and front ends' "any value");
* a summand is enabled in state ``s`` under an assignment of its locals when ``guard`` is
  true; running ``program`` from ``s`` gives the successor.

Values are ints; booleans are 0/1.  ``/`` truncates toward zero and ``%`` takes the sign of
the dividend (C, C#, Promela and DVE agree).  A run-time fault -- an array index out of
bounds, division by zero, a value written outside a variable's domain, a failed
``Assert`` or a ``While`` exceeding ``loop_bound`` iterations -- is an *error*: the explorer
reports it and the CSP treats that summand instance as having no successor.

Invariants (checked by ``validate``): names are unique across globals, and locals do not
shadow globals; array indices are expressions, arrays are one-dimensional (front ends
flatten), every domain is a non-empty sorted tuple of distinct ints, and every initial value
lies inside its domain.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

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


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Name:
    """A global scalar, a summand local, or a temporary assigned inside a program."""

    name: str


@dataclass(frozen=True)
class Index:
    """Element ``array[index]`` of a one-dimensional global array."""

    array: str
    index: "Expr"


@dataclass(frozen=True)
class Unary:
    op: str
    operand: "Expr"


@dataclass(frozen=True)
class Binary:
    op: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Ite:
    """``cond ? then : else_``."""

    cond: "Expr"
    then: "Expr"
    else_: "Expr"


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


@dataclass(frozen=True)
class Assert:
    """An error when ``cond`` is false (Promela ``assert``, DVE ``assert``)."""

    cond: Expr
    text: str = ""


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
class Summand:
    """``sum locals . [guard] event {program}``.

    ``owners`` lists the process instances taking part (empty for an indexed family, whose
    process is the value of a local); ``origin`` says where in the source it comes from.
    """

    locals: tuple[Local, ...]
    guard: Expr
    event: Event
    program: tuple[Stmt, ...]
    origin: str = ""
    owners: tuple[str, ...] = ()


@dataclass(frozen=True)
class Assertion:
    """A property kept for the explorer: ``deadlockfree``, ``reaches`` or ``invariant``."""

    kind: str
    text: str
    condition: Expr | None = None


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
class SequentialModel:
    """The whole linearised model; ``parameters`` are the ``#define`` values used."""

    name: str
    variables: tuple[Variable, ...]
    summands: tuple[Summand, ...]
    assertions: tuple[Assertion, ...] = ()
    parameters: tuple[tuple[str, int], ...] = ()
    source: str = ""
    loop_bound: int = 256
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
    for i, s in enumerate(model.summands):
        where = s.origin or f"summand {i}"
        local_names = set()
        for loc in s.locals:
            if loc.name in names:
                raise ModelError(f"{where}: local {loc.name!r} shadows a global")
            if loc.name in local_names:
                raise ModelError(f"{where}: local {loc.name!r} bound twice")
            local_names.add(loc.name)
            _check_domain(loc.name, loc.domain)
        for e in _summand_exprs(s):
            _check_expr(e, arrays, where)


def _summand_exprs(s: Summand):
    """Every expression of a summand, element targets included (their array is checked)."""
    from detect.ir.walk import program_expressions, statements  # walk builds on this module

    yield s.guard
    yield from s.event.args
    yield from (st.target for st in statements(s.program)
                if isinstance(st, Assign) and isinstance(st.target, Index))
    yield from program_expressions(s.program)


def _check_expr(e: Expr, arrays: set[str], where: str) -> None:
    from detect.ir.walk import subexpressions

    for x in subexpressions(e):
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
    "Stmt",
    "Variable",
    "Local",
    "Event",
    "Summand",
    "Assertion",
    "Unranged",
    "Placeholder",
    "DomainFacts",
    "SequentialModel",
    "Slot",
    "state_slots",
    "slot_offsets",
    "literal_label",
    "left_spine",
    "ModelError",
    "validate",
    "show_domain",
]
