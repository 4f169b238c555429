"""Never claims: the synchronous product of the system and its claim, as Spin's pan explores it.

The claim moves first, on the current system state; then one process of the system moves;
then the claim again -- except inside an atomic sequence: a step that keeps its process in
atomic mode is followed by that process's next step, and the claim moves only once the
sequence ends or blocks (checked against pan.c's ``new_state`` and ``-DVERBOSE`` runs of
Spin 6.5.2).
Two state bits say whose move is next: ``_turn`` (1: the claim's) and ``_stutter`` (1: the
claim's last move was a stutter move).  Besides the alternation, pan has these rules:

* *stutter*: when no process can move (``timeout`` moves included), the claim moves again on
  the same system state (``-DNOSTUTTER`` is not the default, also under ``-DSAFETY``).  Pan
  stores the state after a stutter move under the same key as the claim-turn state before
  the system got stuck, and prunes its search there: ``_entry`` keeps that claim location
  (where the claim was when the system arrived), and a stutter move back to it leads to
  that claim-turn state itself, the state pan matches (so cycles stay cycles).
  Where several claim locations enter one stuck system state, pan's count depends on its
  search order (whichever key it stores first prunes the others); ours is that of each
  entry taken first, so it can exceed pan's there;
* *atomic hand-over*: when the process holding atomic control is blocked, the claim moves
  before control passes to the others (pan's "switch to claim");
* *claim atomic*: a step of the claim inside an ``atomic`` sequence (not its last) keeps
  the turn with the claim (``_chain`` 1); pan stores no state until the sequence ends, and
  when the sequence began with a stutter move not the state it ends in either (``_chain``
  2: the claim stutters again from there, and the state after that move is stored);
* *timeout*: pan enables ``timeout`` at the claim's move (no process could move), and a
  system step that keeps atomic control passes that value on to the holder's next step
  (``_timeout``); a holder's ``timeout`` is that carried value;
* *violation*: a claim at its closing brace or at an ``end`` label (pan's ``stopstate``) is
  the error "end state in claim reached" -- here an ``invariant`` that fails there.  A claim
  that cannot move prunes the path.  Like any process, a claim at its closing brace is
  removed (``-end-``, to location 0) once every other process is: pan gives the claim pid 0
  and removes processes last-in first-out.

Pan stores a product state when the claim is to move and no process holds atomic control,
and after a stutter move; ``stored`` says which of our states those are, and ``hidden`` the
bits pan's state vector lacks.  Deadlocks are not errors under a claim (pan: "invalid end
states - (disabled by never claim)").  The claim is one more process (``never``), with
``_nr_pr`` counting it as pan does; its ``pid`` is ``None``, the system's pids are unchanged.
Acceptance cycles (``accept`` labels) become an ``acceptance`` assertion (``detect.checking.cycles``).

Non-progress cycles (``progress`` labels, pan's ``-l`` under ``-DNP``) are acceptance cycles
of pan's own claim ``:np_:`` (``np_claim``), which replaces any never claim of the model, as
pan compiled with ``-DNP`` does: location 1 loops on ``true`` and moves to the accepting
location 2 where ``np_`` holds, which loops on ``np_``.  ``np_`` holds where no process is at a
``progress`` label and the claim is not stuttering (pan.m's ``_T5``: ``!(o_pm&4) &&
!(tau&128)``), so a system that stops is no non-progress cycle.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from detect import ir
from detect.errors import InputError
from detect.ir import Assign, Binary, Const, Expr, Name
from detect.ir import walk
from detect.ir.build import conj, disj, fold, neg

from frontends.promela import syntax as S
from frontends.promela.cfg import Graph

CLAIM = "never"
CLAIM_PC = "never.pc"
TURN = "_turn"
STUTTER = "_stutter"
ENTRY = "_entry"
#: 1: ``timeout`` holds for the atomic step to come (pan's inherited ``tau & 1``)
CARRY = "_timeout"
#: 1: inside an atomic sequence of the claim; 2: the system's turn after one that began
#: with a stutter move (pan's ``tau & 8`` on the claim's turn)
CHAIN = "_chain"
#: the state pan keeps outside its state vector (its search stack's ``tau``)
HIDDEN = (TURN, STUTTER, ENTRY, CARRY, CHAIN)


@dataclass(frozen=True)
class ClaimStep:
    """One transition of the claim: from ``src`` to ``dst`` where ``guard`` holds, running
    ``program`` (an ``assert``: what ``spin -f`` writes for a safety formula)."""

    src: int
    dst: int
    guard: Expr
    origin: ir.Origin
    program: tuple = ()
    #: an element of an atomic sequence other than its last: the claim moves again at once
    keep: bool = False
    #: faults where pan evaluates a poll of a rendezvous channel (``rvpoll``); no move
    probe: bool = False


@dataclass(frozen=True)
class Product:
    """The system's summands put in lock-step with the claim (see the module docstring)."""

    variables: tuple[ir.Variable, ...]
    summands: tuple[ir.Summand, ...]
    stored: Expr
    assertion: ir.Assertion
    process: ir.Process


def check_claim(claim: S.Never, graph: Graph, error: Callable[[str, object], InputError]) -> None:
    """Refuse what a never claim may not do: change state, declare variables (and a
    ``d_step``, not supported there; ``atomic`` is, as Spin's translator writes it)."""
    if graph.locals:
        # Spin 6.5.2 prints "never_0 defines local n" (and writes a pan.c all the same)
        raise error("variable declarations inside a never claim are not supported (Spin reports "
                    "them as an error too: defines local)", graph.locals[0].pos)
    for t in graph.transitions:
        if t.kind == "stmt" and not isinstance(t.stmt, (S.ExprStmt, S.Printf, S.AssertStmt)):
            raise error(f"a never claim may only test conditions, found {type(t.stmt).__name__.lower()}",
                        t.stmt.pos)


def _atomic_block(node) -> S.Block | None:
    """The first ``d_step`` block inside ``node``, or None."""
    if isinstance(node, S.Block) and node.kind == "d_step":
        return node
    if isinstance(node, (S.Sequence, S.Block, S.Labeled, S.Choice)):
        children = {S.Sequence: lambda n: n.stmts, S.Block: lambda n: (n.body,), S.Labeled: lambda n: (n.stmt,),
                    S.Choice: lambda n: n.options}[type(node)](node)
        return next((b for c in children if (b := _atomic_block(c)) is not None), None)
    return None


def _conj(*es: Expr) -> Expr:
    return conj(*es, false="absorbs")


def _at(name: str, value: int) -> Expr:
    return Binary("==", Name(name), Const(value))


def claim_timeouts(steps: Sequence[ClaimStep], timeout: str, no_system_move: Expr,
                   carry: bool) -> list[ClaimStep]:
    """``steps`` with the claim's own ``timeout`` (the name ``timeout`` in their guards and
    programs: a ``d_step``'s) decided as pan 6.5.2 decides it (pan.c's ``new_state``, ETIM):
    the claim first tries its moves with the bit off; where the system then cannot move
    (``no_system_move``: no step enabled without timeout, nobody holding atomic control; the
    successors of those moves are dead ends, "req timeout") or the claim has no move at
    all, it tries them again with the bit on, and the system's next step inherits it
    (``CARRY``, where ``carry``: its timeout moves are enabled).  After a stutter move the
    bit is on (``no_system_move`` holds there)."""
    def reads(st: ClaimStep) -> bool:
        return timeout in walk.names_read(st.guard) or any(
            timeout in walk.names_read(e) for e in walk.program_expressions(st.program))

    def given(st: ClaimStep, value: Expr) -> ClaimStep:
        return dataclasses.replace(st, guard=fold(walk.substitute(st.guard, {Name(timeout): value})),
                                   program=tuple(walk.substitute_program(st.program, {Name(timeout): value})))

    if not any(reads(st) for st in steps):
        return list(steps)
    off = {id(st): given(st, ir.FALSE) for st in steps}
    out = []
    for st in steps:
        if not reads(st):
            out.append(st)
            continue
        if st.probe:  # pan's first try, with the bit off
            out.append(off[id(st)])
            continue
        on = given(st, ir.TRUE)
        # the claim has no move with the bit off
        stuck = _conj(*(neg(off[id(o)].guard) for o in steps if o.src == st.src and not o.probe))
        out.append(dataclasses.replace(off[id(st)], guard=_conj(neg(no_system_move), off[id(st)].guard)))
        out.append(dataclasses.replace(on, guard=_conj(disj(no_system_move, stuck), on.guard),
                                       program=on.program + ((Assign(Name(CARRY), Const(1)),) if carry else ())))
    return out


def product(system: Sequence[ir.Summand], keeps: Sequence[bool], steps: Sequence[ClaimStep], graph: Graph, *,
            atomic_free: Expr, holder_blocked: Expr, release: tuple, lengths: Mapping[str, int] = {},
            carried: Sequence[Expr | None] | None = None, probes: Sequence[ir.Summand] = ()) -> Product:
    """The product of ``system`` (summands with their final guards) and the claim ``graph``.

    ``keeps[k]``: system summand k leaves a process in atomic mode.  ``atomic_free`` holds
    where no process holds atomic control, ``holder_blocked`` where one does and cannot move
    (its timeout moves not counted, unless ``CARRY`` says timeout holds); ``release`` frees
    control; ``lengths``: the arrays' lengths (``no_move``).  ``carried`` (when a holder
    may read timeout): for each system summand that keeps atomic control, what ``CARRY``
    becomes (None: unchanged), so that the value of ``timeout`` the sequence began with
    passes on to the holder's next step (pan: "if claim allowed timeout, so does the next
    program-step"); any other move of the system clears it.  ``probes``: system summands that
    fault where pan evaluates a poll of a rendezvous channel (no move: not in ``no_move``)."""
    system_turn = _at(TURN, 0)
    chains = any(st.keep for st in steps)
    # what every move that hands the turn to the claim afresh resets
    clear = (Assign(Name(STUTTER), Const(0)), Assign(Name(ENTRY), Const(0)))
    if chains:
        clear += (Assign(Name(CHAIN), Const(0)),)
    cleared = (Assign(Name(CARRY), Const(0)),) if carried is not None else ()
    carries = [() if c is None else (Assign(Name(CARRY), c),) for c in carried or [None] * len(system)]
    moved = (Assign(Name(TURN), Const(1)),) + clear + cleared
    summands = [ir.Summand(s.locals, _conj(system_turn, s.guard), s.event,
                           carry + s.program + clear if keep else s.program + moved,
                           s.origin, s.owners) for s, keep, carry in zip(system, keeps, carries)]
    summands.append(ir.Summand((), _conj(system_turn, atomic_free, no_move(system, lengths)), ir.Event("never.stutter"),
                               (Assign(Name(TURN), Const(1)), Assign(Name(STUTTER), Const(1)))
                               + ((Assign(Name(CHAIN), Const(0)),) if chains else ()),
                               ir.Origin.at(text="never claim stutters (no process can move)"), (CLAIM,)))
    summands += [dataclasses.replace(s, guard=_conj(system_turn, s.guard)) for s in probes]
    if holder_blocked != ir.FALSE:
        summands.append(ir.Summand((), _conj(system_turn, holder_blocked), ir.Event("never.handover"),
                                   moved + release,
                                   ir.Origin.at(text="never claim moves (atomic process blocked)"), (CLAIM,)))
    for st in steps:
        goto = st.program + (Assign(Name(CLAIM_PC), Const(st.dst)),)
        at = _conj(_at(TURN, 1), _at(CLAIM_PC, st.src), st.guard)
        event = ir.Event(f"never.{st.src}")

        def add(guard: Expr, program: tuple) -> None:
            summands.append(ir.Summand((), guard, event, program, st.origin, (CLAIM,)))

        if st.probe:  # pan tries every claim step on each of the claim's turns
            add(at, st.program)
            continue
        if st.keep:
            # the claim moves again at once; pan stores no state before the sequence ends
            add(_conj(at, _at(STUTTER, 0), _at(CHAIN, 0)), goto + (Assign(Name(ENTRY), Const(st.src)),
                                                                  Assign(Name(CHAIN), Const(1))))
            add(_conj(at, _at(STUTTER, 0), _at(CHAIN, 1)), goto)
            add(_conj(at, _at(STUTTER, 1)), goto + (Assign(Name(CHAIN), Const(1)),))
            continue
        fresh = (_at(CHAIN, 0),) if chains else ()
        move = goto + (Assign(Name(TURN), Const(0)),)
        add(_conj(at, _at(STUTTER, 0), *fresh), move + (Assign(Name(ENTRY), Const(st.src)),))
        add(_conj(at, _at(STUTTER, 1), *fresh, neg(_at(ENTRY, st.dst))), move)
        add(_conj(at, _at(STUTTER, 1), *fresh, _at(ENTRY, st.dst)), goto + moved)
        if chains:
            # the end of an atomic sequence of the claim: after a stutter move pan does not
            # store the state it reaches (the claim stutters again from there)
            add(_conj(at, _at(STUTTER, 0), _at(CHAIN, 1)), move + (Assign(Name(CHAIN), Const(0)),))
            add(_conj(at, _at(STUTTER, 1), _at(CHAIN, 1)), move + (Assign(Name(CHAIN), Const(2)),))
    locations = tuple(range(0, max(graph.locations) + 1))
    pc = ir.Variable(CLAIM_PC, locations, ((graph.entry,),), None, CLAIM)
    variables = (pc, ir.Variable(TURN, (0, 1), ((1,),)), ir.Variable(STUTTER, (0, 1), ((0,),)),
                 ir.Variable(ENTRY, locations, ((0,),)))
    if carried is not None:
        variables += (ir.Variable(CARRY, (0, 1), ((0,),)),)
    if chains:
        variables += (ir.Variable(CHAIN, (0, 1, 2), ((0,),)),)
        stored = disj(_conj(_at(TURN, 1), _at(STUTTER, 0), atomic_free, neg(_at(CHAIN, 1))),
                      _conj(system_turn, _at(STUTTER, 1), neg(_at(CHAIN, 2))))
    else:
        stored = disj(_conj(_at(TURN, 1), _at(STUTTER, 0), atomic_free), _conj(system_turn, _at(STUTTER, 1)))
    ends = sorted(graph.end_labels | {0})
    assertion = ir.Assertion("invariant", "never claim: its end is not reached",
                             neg(disj(*(_at(CLAIM_PC, e) for e in ends))))
    return Product(variables, tuple(summands), stored, assertion,
                   ir.Process(CLAIM, CLAIM, 0, None, ((CLAIM_PC, 0),)))


def no_move(system: Sequence[ir.Summand], lengths: Mapping[str, int] = {}) -> Expr:
    """No summand of ``system`` is enabled, as one conjunct per process (the first owner of
    a summand; that process cannot move): a flat disjunction of every guard would become a
    chain of binary constraints past ``JUNCTION_OPERANDS`` operands and single out its last
    processes, hiding their symmetry.

    An element read through a variable index (``victim[l]``, arrays of ``lengths``) reads
    0 where the index is out of range, instead of faulting (``_total_reads``): the conjuncts are evaluated in
    order, so a fault of the second would be reached only where the first holds, and that
    order would single out the first process and hide every symmetry that moves it
    (``peterson_filter.pml`` lost all of them under any claim).  Where such a read would
    fault, the process's own step of that guard faults too (same guard, same state), so the
    model's fault states are the same."""
    by_process: dict[tuple, list[Expr]] = {}
    for s in system:
        by_process.setdefault(s.owners[:1], []).append(_total_reads(s.guard, lengths))
    return _conj(*(neg(disj(*guards)) for guards in by_process.values()))


def _total_reads(e: Expr, lengths: Mapping[str, int]) -> Expr:
    """``e`` with each read ``a[i]`` of a non-constant ``i`` as ``i == 0 ? a[0] : i == 1 ? a[1] : ... : 0``."""
    if isinstance(e, ir.Index):
        index = _total_reads(e.index, lengths)
        read = ir.Index(e.array, index)
        if isinstance(index, Const) or e.array not in lengths:
            return read
        # element by element, each a read with a constant subscript, which cannot fault
        # (a guarded read still carries a fault relation that singles out its conjunct)
        out: Expr = Const(0)
        for k in reversed(range(lengths[e.array])):
            out = ir.Ite(Binary("==", index, Const(k)), ir.Index(e.array, Const(k)), out)
        return out
    if isinstance(e, ir.Unary):
        return ir.Unary(e.op, _total_reads(e.operand, lengths))
    if isinstance(e, Binary):
        return Binary(e.op, _total_reads(e.left, lengths), _total_reads(e.right, lengths))
    if isinstance(e, ir.Ite):
        return ir.Ite(_total_reads(e.cond, lengths), _total_reads(e.then, lengths), _total_reads(e.else_, lengths))
    return e


def cycle_assertions(accepting: Sequence[Expr], progress: bool) -> tuple[ir.Assertion, ...]:
    """The cycle properties the model's labels ask for: no acceptance cycle (``accepting``:
    where the claim -- or, without one, a process -- is at an ``accept`` label; checked by
    ``detect.checking.cycles``), no non-progress cycle (``progress`` labels: not checked
    unless asked for, ``np_claim``)."""
    out = []
    if accepting:
        out.append(ir.Assertion("acceptance", "no acceptance cycle (accept labels)", disj(*accepting)))
    if progress:
        out.append(ir.Assertion("progress", "no non-progress cycle (progress labels; not checked: "
                                            "pass --non-progress)"))
    return tuple(out)


#: pan's name for its non-progress claim; as an ``ltl_name``, asks for that claim instead
#: of the model's never claim or ltl formulas (``frontends.promela.parse_text``)
NON_PROGRESS = ":np_:"
#: the accepting location of ``np_claim``
NP_ACCEPT = 2
NP_ASSERTION = "no non-progress cycle (progress labels, as pan -l)"


def np_claim(at_progress: Sequence[Expr], origin: ir.Origin) -> tuple[Graph, list[ClaimStep]]:
    """pan's ``:np_:`` claim (module docstring) as a graph and its steps; ``at_progress``:
    the conditions that some process is at a ``progress`` label."""
    np_ = _conj(neg(disj(*at_progress)), _at(STUTTER, 0))
    graph = Graph(NON_PROGRESS, 1, 3, (1, NP_ACCEPT), (), frozenset(), frozenset(),
                  (("accept_np_", NP_ACCEPT),), ())
    steps = [ClaimStep(1, NP_ACCEPT, np_, origin), ClaimStep(1, 1, ir.TRUE, origin),
             ClaimStep(NP_ACCEPT, NP_ACCEPT, np_, origin)]
    return graph, steps
