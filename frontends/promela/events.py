"""Event traces: ``trace { ... }`` and ``notrace { ... }``, as pan 6.5.2 checks them.

A trace is an automaton over channel operations (pan.c's ``require``, compiled with
``EVENT_TRACE``; ``NEGATED_TRACE`` for ``notrace``).  Its receives name the channels of its
*receive scope*, its sends those of its *send scope*.  Whenever a process completes a send
to a channel of the send scope (after the message is appended; pan's ``qsend``) or a
receive from a channel of the receive scope (with the message still at the head; pan's
``qrecv`` with ``done``, so not a poll or a ``?<>`` copy), the trace tries the moves leaving
its location, in order; the first whose channel and constant fields match the message is
taken.  Then:

* ``trace``: no matching move (also at its closing brace) is the error "event_trace
  error (no matching event)";
* ``notrace``: a move that reaches the closing brace is the error "event_trace error (all
  events matched)"; no matching move sends the trace to its closing brace for good
  ("only 1st try will count -- fixed 4.2.6"), where it stays silent;
* two matching moves are pan's fatal "non-determinism in event-trace".

The trace's location is the state variable ``_event`` (pan's ``now._event``, stored), and a
state where no process can move is a valid end state only if the trace is at its closing
brace or an ``end`` label (pan's ``endstate``: "event_trace not completed").  Only channels
declared globally with a fixed identity may be named; rendezvous channels are refused.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from detect.ir import Assert, Assign, Binary, Const, Expr, If, Name
from detect.ir.build import conj, disj, fold, neg

from frontends.promela import syntax as S
from frontends.promela.cfg import Graph

#: the trace's location (pan's ``now._event``)
EVENT = "_event"


@dataclass(frozen=True)
class Move:
    """A trace move from ``src`` to ``dst`` on ``op`` ('s' or 'r') of channel ``prefix``;
    ``match[j]`` is the value field ``j`` must hold (None: any)."""

    src: int
    dst: int
    op: str
    prefix: str
    match: tuple[Optional[Expr], ...]


@dataclass(frozen=True)
class EventTrace:
    negated: bool
    entry: int
    end: int
    locations: tuple[int, ...]
    moves: tuple[Move, ...]
    #: locations where the trace may rest when the system stops (closing brace, ``end`` labels)
    stops: frozenset[int]

    def scope(self, op: str) -> frozenset[str]:
        return frozenset(m.prefix for m in self.moves if m.op == op)

    def update(self, op: str, prefix: str, message: list[Expr]) -> tuple:
        """The program that makes the trace follow event ``op`` on channel ``prefix``
        carrying ``message`` (nothing for a channel outside the trace's scope)."""
        if prefix not in self.scope(op):
            return ()
        here = Name(EVENT)
        out: tuple = ()
        for loc in reversed(self.locations):
            if loc == self.end and self.negated:
                continue  # a notrace at its end stays silent
            matching = [m for m in self.moves if m.src == loc and m.op == op and m.prefix == prefix]
            if self.negated:
                chain: tuple = (Assign(here, Const(self.end)),)
            else:
                chain = (Assert(Const(0), "event_trace error (no matching event)"),)
            for k in reversed(range(len(matching))):
                m = matching[k]
                taken: tuple = ()
                later = [self._matches(x, message) for x in matching[k + 1:]]
                if later:
                    taken += (Assert(neg(disj(*later)), "non-determinism in event-trace"),)
                taken += (Assign(here, Const(m.dst)),)
                if self.negated and m.dst == self.end:
                    taken += (Assert(Const(0), "event_trace error (all events matched)"),)
                chain = (If(self._matches(m, message), taken, chain),)
            out = (If(Binary("==", here, Const(loc)), chain, out),)
        return out

    @staticmethod
    def _matches(m: Move, message: list[Expr]) -> Expr:
        return conj(*(fold(Binary("==", message[j], v)) for j, v in enumerate(m.match) if v is not None))


def event_trace(unit, graph: Graph, channel: Callable[[S.VarRef], object], constant: Callable[[object], Optional[Expr]],
                error: Callable[[str, object], Exception]) -> EventTrace:
    """The trace ``unit`` (``S.Trace``) whose control-flow graph is ``graph``; ``channel``
    resolves a channel reference to its ``Channel`` (a fixed one), ``constant`` gives a
    matched field's value (None for ``_``, an error for anything else)."""
    if graph.locals:
        raise error("variable declarations inside a trace are not supported", graph.locals[0].pos)
    moves = []
    for t in graph.transitions:
        if t.kind == "end":
            continue
        st = t.stmt
        if t.kind != "stmt" or not isinstance(st, (S.Send, S.Recv)) or isinstance(st, S.Recv) and (
                st.random or st.copy) or isinstance(st, S.Send) and st.sorted:
            raise error("a trace may only send and receive (c!v or c?v, constants or _)",
                        getattr(st, "pos", None) or unit.pos)
        ch = channel(st.chan)
        if ch.capacity == 0:
            raise error("unsupported construct: a trace over a rendezvous channel", st.chan.pos)
        if len(st.args) > len(ch.fields):
            raise error(f"{'send' if isinstance(st, S.Send) else 'receive'} of {len(st.args)} fields on a channel "
                        f"of {len(ch.fields)}", st.pos)
        match = tuple(constant(a) for a in st.args)
        moves.append(Move(t.src, t.dst, "s" if isinstance(st, S.Send) else "r", ch.prefix, match))
    return EventTrace(unit.negated, graph.entry, graph.end, tuple(sorted(graph.locations)), tuple(moves),
                      frozenset({graph.end} | set(graph.end_labels)))
