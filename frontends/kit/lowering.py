"""Lowering of the communication and control constructs the languages share, to IR state,
guards and assignments.

* ``FifoBuffer``: a bounded asynchronous channel (CSP# ``channel c 2``, DVE ``channel{byte} c[2]``,
  Promela ``chan c = [2] of {byte}``) as one array per message field plus a length;
* ``latch`` and ``simultaneous``: a rendezvous's hand-off of the sent values to the
  receiver's variables (and any parallel assignment), read in the pre-state;
* ``ProgramCounter``: a process's control location in one state slot;
* ``ExclusiveOwner``: the slot naming the process that holds exclusive control (CSP#
  ``atomic``, Promela ``atomic``/``d_step``), and the turn condition it imposes.

What differs between the languages is a documented parameter, never a copy: the order in
which statements are emitted is visible in the coloured graph (the SSA translation numbers
its variables in program order), so it is kept per language where it differs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence, Union

from detect.ir import Assign, Binary, Const, Expr, Index, Name, Stmt, Variable
from detect.ir.build import disj

Target = Union[Name, Index]


@dataclass(frozen=True)
class FifoBuffer:
    """A bounded FIFO channel lowered to state: ``fields[k]`` is an array of ``capacity``
    slots holding field ``k`` of each queued message, ``length`` counts the messages.

    Invariant: slots ``0 .. length - 1`` hold the queue, head first; every other slot holds
    ``vacant`` (CSP#'s "no value" placeholder, 0 in DVE and Promela).  A send to a full
    buffer blocks (``not_full`` is part of its guard) in all three languages; a receive from
    an empty one blocks (``not_empty``)."""

    fields: tuple[str, ...]
    length: str
    capacity: int
    vacant: int = 0

    @classmethod
    def named(cls, prefix: str, arity: int, capacity: int, *, length: str, field: str) -> "FifoBuffer":
        """The buffer whose length is ``prefix.<length>`` and whose field ``k`` is
        ``prefix.<field><k>``, with vacant slots 0."""
        return cls(tuple(f"{prefix}.{field}{k}" for k in range(arity)), f"{prefix}.{length}", capacity)

    def length_variable(self) -> Variable:
        """The declaration of ``length``: 0 .. ``capacity``, initially 0."""
        return Variable(self.length, tuple(range(self.capacity + 1)), ((0,),))

    def field_variable(self, k: int, domain: tuple[int, ...]) -> Variable:
        """The declaration of field ``k``'s array over ``domain``, every slot ``vacant``."""
        return Variable(self.fields[k], domain, ((self.vacant,),) * self.capacity, self.capacity)

    def not_full(self) -> Expr:
        return Binary("<", Name(self.length), Const(self.capacity))

    def not_empty(self) -> Expr:
        return Binary(">", Name(self.length), Const(0))

    def head(self, k: int) -> Expr:
        """Field ``k`` of the oldest message."""
        return Index(self.fields[k], Const(0))

    def enqueue(self, values: Sequence[Expr]) -> tuple[Stmt, ...]:
        """Append the message ``values`` (one per field) behind the queue (under ``not_full``)."""
        length = Name(self.length)
        return tuple(Assign(Index(f, length), v) for f, v in zip(self.fields, values)) + (
            Assign(length, Binary("+", length, Const(1))),)

    def at(self, slot: int, k: int) -> Expr:
        """Field ``k`` of the message in ``slot`` (0 is the head)."""
        return Index(self.fields[k], Const(slot))

    def remove(self, slot: int) -> tuple[Stmt, ...]:
        """Drop the message in ``slot`` (under ``length > slot``): the messages behind it
        move one slot towards the head, the last slot becomes ``vacant``, ``length``
        decreases (Promela's ``c??m``: pan's ``qrecv`` with ``done`` at that slot)."""
        length = Name(self.length)
        shifts = tuple(
            step
            for f in self.fields
            for step in (*(Assign(Index(f, Const(i)), Index(f, Const(i + 1))) for i in range(slot, self.capacity - 1)),
                         Assign(Index(f, Const(self.capacity - 1)), Const(self.vacant))))
        return shifts + (Assign(length, Binary("-", length, Const(1))),)

    def insert(self, slot: int, values: Sequence[Expr]) -> tuple[Stmt, ...]:
        """Put the message ``values`` into ``slot`` (under ``not_full`` and ``length >=
        slot``), the messages from ``slot`` on moving one slot towards the tail (Promela's
        ``c!!m``: pan's ``qsend`` with ``sorted``).  The vacant slots behind the queue
        hold ``vacant``, so shifting every slot from ``slot`` keeps the invariant."""
        length = Name(self.length)
        shifts = tuple(Assign(Index(f, Const(i + 1)), Index(f, Const(i)))
                       for f in self.fields for i in reversed(range(slot, self.capacity - 1)))
        return shifts + tuple(Assign(Index(f, Const(slot)), v) for f, v in zip(self.fields, values)) + (
            Assign(length, Binary("+", length, Const(1))),)

    def dequeue(self, *, length_first: bool = False) -> tuple[Stmt, ...]:
        """Drop the head message (under ``not_empty``; read it with ``head`` before): every
        field array shifts one slot towards the head and its last slot becomes ``vacant``,
        and ``length`` decreases.  ``length_first`` emits the decrement before the shifts
        (DVE's order) rather than after (CSP#, Promela); the effect is the same."""
        length = Name(self.length)
        shifts = tuple(
            step
            for f in self.fields
            for step in (*(Assign(Index(f, Const(i)), Index(f, Const(i + 1))) for i in range(self.capacity - 1)),
                         Assign(Index(f, Const(self.capacity - 1)), Const(self.vacant))))
        decrement = (Assign(length, Binary("-", length, Const(1))),)
        return decrement + shifts if length_first else shifts + decrement


def latch(values: Sequence[Expr], temp: Callable[[int], str]) -> tuple[tuple[Assign, ...], tuple[Name, ...]]:
    """The assignments reading each of ``values`` into the temporary ``temp(k)``, and those
    temporaries.  A rendezvous reads every sent value in the pre-state, before the receiver
    writes any variable (a sent expression may read one the receive writes)."""
    temps = tuple(Name(temp(k)) for k in range(len(values)))
    return tuple(Assign(t, v) for t, v in zip(temps, values)), temps


def simultaneous(writes: Sequence[tuple[Target, Expr]], temp: Callable[[int], str]) -> tuple[Assign, ...]:
    """``target := value`` for every pair at once, every value read before any target is
    written: one pair is a plain assignment, more go through the temporaries ``temp(k)``."""
    if len(writes) == 1:
        return (Assign(*writes[0]),)
    assigns, temps = latch([v for _, v in writes], temp)
    return assigns + tuple(Assign(target, t) for (target, _), t in zip(writes, temps))


@dataclass(frozen=True)
class ProgramCounter:
    """A process's control location, stored in ``slot`` (a scalar, or one element of a
    family's pc array)."""

    slot: Target

    def at(self, location: int) -> Expr:
        return Binary("==", self.slot, Const(location))

    def goto(self, location: int) -> Assign:
        return Assign(self.slot, Const(location))


@dataclass(frozen=True)
class ExclusiveOwner:
    """The state slot ``name`` holding the id of the process in exclusive control (inside an
    atomic block), or ``free`` when no process is.

    Invariant kept by the guards: while a process holds it, only that process moves, unless
    a ``turn``'s caller lets others move where the holder has yielded (Promela: a blocked
    holder loses control)."""

    name: str
    free: int

    def variable(self, holders: Sequence[int]) -> Variable:
        """The declaration: ``free`` or one of the ``holders`` ids, initially ``free``."""
        return Variable(self.name, (self.free, *holders), ((self.free,),))

    def held_by(self, holder: Expr) -> Expr:
        return Binary("==", Name(self.name), holder)

    def turn(self, ids: Sequence[Expr], yielded: Sequence[Expr] = ()) -> Expr:
        """May a process with one of ``ids`` move: nobody holds control, it holds it itself,
        or one of the ``yielded`` conditions holds (a left-nested ``||`` chain in that order)."""
        return disj(self.held_by(Const(self.free)), *(self.held_by(i) for i in ids), *yielded)

    def take(self, holder: Expr) -> Assign:
        return Assign(Name(self.name), holder)

    def release(self) -> Assign:
        return Assign(Name(self.name), Const(self.free))
