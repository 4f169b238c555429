"""Control-flow graphs of proctype bodies, built the way Spin builds its state machines.

A *location* is a point of control (Spin's state of a process's automaton); a *transition*
is one atomic step of Spin (one basic statement, a whole ``d_step``, an ``else``, a ``goto``
or ``break`` that begins an option, or ``-end-``, the removal of a terminated process).
``goto`` and ``break`` elsewhere are jumps, not steps: their location *is* the target
location (checked against Spin 6.5: ``x = 1; goto L; L: x = 2`` has 4 states, not 5).  The
options of an ``if``/``do`` leave from the choice location itself, also when an option
starts with a nested ``if``.

Locations are plain ints.  Atomicity is a property of the *step*, as in Spin's transition
table (``atom & 2``): every element syntactically inside an ``atomic`` is marked, except the
last element of the outermost atomic sequence (found through nested ``atomic`` and ``{ }``
blocks; Spin's ``L_ATOM``).  When the last element is an ``if``/``do``, its options stay
marked and its exit is the unmarked element.  Jumps inside an atomic sequence (``goto``,
``break``, the exit of an ``if``/``do``) are elements of their own in Spin; here they are
collapsed into the step before them, so a step keeps the process in atomic mode
(``Transition.keep``) iff the *last* element of its chain is marked.  So the loop head of
``atomic { do ... od }`` keeps control when the body returns to it, although entering it
from outside does not, and ``goto`` from inside an atomic sequence to a label outside it
would keep control until the statement at the label has run, but Spin marks a ``goto``
inside an atomic sequence iff its label lies inside one too -- even a ``goto`` that is the
sequence's last element and jumps back into it (checked against Spin 6.5's ``pan.t``).
A ``{ }`` or ``atomic`` block whose first statement is a ``do`` is entered through a
location of its own with the loop's options (Spin's "sub-sequence" state).  ``holding`` are the locations where a process may hold atomic control.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Optional

from detect.errors import InputError

from frontends.kit import Num, Span
from frontends.promela import syntax as S


@dataclass(frozen=True)
class Transition:
    """``kind``: ``stmt`` (a basic statement ``stmt``), ``goto`` (an option starting with a
    jump), ``else``, ``dstep`` (``stmt`` is the ``Block``) or ``end``.  For ``else``,
    ``siblings`` are the indices of every other transition leaving the same location."""

    src: int
    dst: int
    kind: str
    stmt: object
    line: int
    siblings: tuple[int, ...] = ()
    #: the process keeps atomic control after this step (see the module docstring)
    keep: bool = False
    #: for the first step of an ``unless`` escape copied to a location of its main part:
    #: the number of that ``unless`` (0: an ordinary step)
    escape: int = 0


@dataclass(frozen=True)
class Graph:
    """A proctype's automaton: ``entry`` and ``end`` (the closing brace) are locations."""

    name: str
    entry: int
    end: int
    locations: tuple[int, ...]
    transitions: tuple[Transition, ...]
    holding: frozenset[int]
    end_labels: frozenset[int]
    labels: tuple[tuple[str, int], ...]
    #: every local declared in the body (the state variables of an instance), in source order
    locals: tuple[S.VarDecl, ...]
    #: those declared before the body's first statement: Spin initialises them when the
    #: process is created; every other declaration is a step (``declarations_as_steps``)
    created: tuple[S.VarDecl, ...] = ()
    #: per location inside the main part of some ``unless``: the numbers of those
    #: ``unless`` statements, outermost first (pan tries their escapes in this order, then
    #: the location's own steps: the first executable group preempts all after it)
    escapes: tuple[tuple[int, tuple[int, ...]], ...] = ()

    def preempting(self, t: "Transition") -> tuple[int, ...]:
        """The ``unless`` numbers whose escapes, when executable, preempt ``t``."""
        groups = dict(self.escapes).get(t.src, ())
        return groups if t.escape == 0 else groups[:groups.index(t.escape)]

    def outgoing(self, loc: int) -> list[int]:
        return [k for k, t in enumerate(self.transitions) if t.src == loc]

    def reachable_from(self, loc: int) -> set[int]:
        seen, todo = {loc}, [loc]
        while todo:
            x = todo.pop()
            for t in self.transitions:
                if t.src == x and t.dst not in seen:
                    seen.add(t.dst)
                    todo.append(t.dst)
        return seen


class _Builder:
    def __init__(self, name: str, path: str, origin, visible: frozenset[str] = frozenset()):
        self.name = name
        self.visible = visible  # labels some remote reference P@L names
        self.path = path
        self.origin = origin  # preprocessed line -> (path, line)
        self.next_loc = 0
        self.alias: dict[int, int] = {}
        self.trans: list[dict] = []
        self.labels: dict[str, int] = {}
        self.atomic_depth = 0
        self.atomic_block = 0  # number of the outermost atomic block we are in (0: none)
        self.atomic_blocks = 0
        self.label_block: dict[str, int] = {}
        self.l_atom: set[int] = set()  # ids of the elements Spin marks L_ATOM
        self.jump_keep: dict[int, bool] = {}  # jump location -> its element's atomic mark
        self.end_labels: set[int] = set()
        self.locals: list[S.VarDecl] = []
        self.pending_gotos: list[tuple[int, str, Span, bool, int]] = []
        self.copies: list[tuple[int, int]] = []
        #: per ``unless`` (numbered from 1 in the order they are met, outer before inner):
        #: (its number, the locations of its main part, its escape's entry location)
        self.unlesses: list[tuple[int, list[int], int]] = []
        #: the labels inside d_steps (no location of the graph: a d_step is one step)
        self.dstep_labels: set[str] = set()
        #: where a d_step that is a statement of a sequence (not an option's first) starts,
        #: and each break's (target, position): Spin 6.5.2 refuses a goto or break to such
        #: a d_step ("jump into d_step sequence"), checked in ``build_graph``
        #: (not a break inside an atomic sequence, nor a jump to an atomic sequence that
        #: starts with the d_step: Spin accepts those)
        self.dstep_entries: set[int] = set()
        self.atomic_starts: set[int] = set()
        self.breaks: list[tuple[int, Span, int]] = []

    def error(self, message: str, pos: Span) -> InputError:
        path, line = self.origin(pos.line)
        return InputError(message, path, line, pos.column)

    def new(self) -> int:
        self.next_loc += 1
        return self.next_loc

    def root(self, loc: int) -> int:
        while loc in self.alias:
            loc = self.alias[loc]
        return loc

    def marked(self, s) -> bool:
        """Spin's ``atom & 2`` of element ``s``: inside an atomic sequence, not its last."""
        return self.atomic_depth > 0 and id(s) not in self.l_atom

    def add(self, src: int, dst: int, kind: str, stmt, pos: Span, mark_of=None) -> int:
        keep = self.marked(stmt if mark_of is None else mark_of)
        self.trans.append(dict(src=src, dst=dst, kind=kind, stmt=stmt, line=pos.line, siblings=(), keep=keep))
        return len(self.trans) - 1

    def exit_location(self, choice, cont: int) -> int:
        """The exit element of an ``if``/``do`` (Spin's ``.(goto)``/``break``), a jump to ``cont``."""
        loc = self.new()
        self.alias[loc] = cont
        self.jump_keep[loc] = self.marked(choice)
        return loc

    def label(self, name: str, at: int, pos: Span) -> None:
        if name in self.labels:
            raise self.error(f"label {name} defined twice", pos)
        self.labels[name] = at
        self.label_block[name] = self.atomic_block
        if name.startswith("end"):
            self.end_labels.add(at)

    def labelled_jump(self, s: S.Labeled) -> bool:
        """``s`` labels a ``goto``/``break`` that Spin turns into a step (see ``stmt``)."""
        names, inner = [], s
        while isinstance(inner, S.Labeled):
            names.append(inner.label)
            inner = inner.stmt
        return isinstance(inner, (S.Goto, S.Break)) and any(
            n.startswith(("accept", "end", "progress")) or n in self.visible for n in names)

    # ------------------------------------------------------------------ statements
    def seq(self, seq: S.Sequence, at: int, cont: int, brk: Optional[int], option_head: bool) -> None:
        stmts = [s for s in seq.stmts if s is not None and not isinstance(s, S.Decl)]
        if not stmts:
            if option_head:
                raise self.error("empty option", seq.pos)
            self.alias[at] = cont
            return
        cur = at
        for i, s in enumerate(stmts):
            nxt = cont if i == len(stmts) - 1 else self.new()
            self.stmt(s, cur, nxt, brk, option_head and i == 0)
            cur = nxt

    def stmt(self, s, at: int, cont: int, brk: Optional[int], option_head: bool) -> None:
        if isinstance(s, S.Labeled) and self.labelled_jump(s):
            # Spin makes ``L: goto M`` (or ``L: break``) a ``(1)`` step followed by the jump
            # when L is an accept/end/progress label (flow.c ``add_el``) or some ``P@L``
            # names it (``fix_dest``): the process can be *at* L.
            inner = s
            while isinstance(inner, S.Labeled):
                self.label(inner.label, at, inner.pos)
                inner = inner.stmt
            mid = self.new()
            skip = S.ExprStmt(Num(1, inner.pos), inner.pos)
            self.add(at, mid, "stmt", skip, inner.pos)
            self.stmt(inner, mid, cont, brk, False)
        elif isinstance(s, S.Labeled):
            self.label(s.label, at, s.pos)
            self.stmt(s.stmt, at, cont, brk, option_head)
        elif isinstance(s, S.Goto):
            if option_head:
                self.pending_gotos.append((self.add(at, 0, "goto", s, s.pos), s.label, s.pos, True,
                                           self.atomic_block))
            else:
                self.jump_keep[at] = self.marked(s)
                self.pending_gotos.append((at, s.label, s.pos, False, self.atomic_block))
        elif isinstance(s, S.Break):
            if brk is None:
                raise self.error("break outside a do loop", s.pos)
            self.breaks.append((brk, s.pos, self.atomic_block))
            if option_head:
                self.add(at, brk, "goto", s, s.pos)
            else:
                self.jump_keep[at] = self.marked(s)
                self.alias[at] = brk
        elif isinstance(s, S.Else):
            if not option_head:
                raise self.error("else must be the first statement of an option", s.pos)
            self.add(at, cont, "else", s, s.pos)
        elif isinstance(s, S.Choice):
            if s.loop:
                loop = at if not option_head else self.new()
                if option_head:
                    # Spin leaves the outer choice with the loop's own options.
                    self.copies.append((at, loop))
                self.choice(s, loop, loop, self.exit_location(s, cont))
            else:
                self.choice(s, at, self.exit_location(s, cont), brk)
        elif isinstance(s, S.Block):
            if s.kind in ("block", "atomic") and _starts_with_loop(s.body):
                # Spin enters a { } or atomic sub-sequence whose first statement is a do
                # through a state of its own with the loop's options; the loop returns to
                # its own head (Examples/abp.pml: 12 states, not 11).
                head = self.new()
                self.copies.append((at, head))
                at = head
            if s.kind == "block":
                self.seq(s.body, at, cont, brk, option_head)
            elif s.kind == "atomic":
                outer = self.atomic_block
                if self.atomic_depth == 0:
                    last = _last_element(s.body)
                    if last is not None:
                        self.l_atom.add(id(last))
                    self.atomic_blocks += 1
                    self.atomic_block = self.atomic_blocks
                self.atomic_depth += 1
                self.atomic_starts.add(at)
                self.seq(s.body, at, cont, brk, option_head)
                self.atomic_depth -= 1
                self.atomic_block = outer
            else:
                _check_dstep(self, s.body)
                if not option_head:
                    self.dstep_entries.add(at)
                self.add(at, cont, "dstep", s, s.pos)
        elif isinstance(s, S.Unless):
            self.unless(s, at, cont, brk, option_head)
        elif isinstance(s, S.Call):
            raise self.error(f"unknown inline {s.name}", s.pos)
        else:
            self.add(at, cont, "stmt", s, s.pos)

    def unless(self, s: S.Unless, at: int, cont: int, brk: Optional[int], option_head: bool) -> None:
        """``main unless escape``: ``main`` built from ``at``, ``escape`` from a location of its
        own (its first steps are copied to every location of ``main`` in ``build_graph``)."""
        if option_head:
            # Spin attaches the escape to the states of the main part; the first of them
            # would be the if/do's own location, shared with the other options (Spin
            # counts neither as if the escape preempted them all nor as if it came after
            # the option's first step: 179 states where those give 157 and 211).
            raise self.error("unsupported construct: 'unless' as the first statement of an if/do option "
                             "(Spin 6.5.2's states for it are not reproduced)", s.pos)
        first_escape = s.escape
        while isinstance(first_escape, (S.Block, S.Labeled)):
            inner = [x for x in (first_escape.body.stmts if isinstance(first_escape, S.Block)
                                 else (first_escape.stmt,)) if x is not None and not isinstance(x, S.Decl)]
            first_escape = inner[0] if inner else None
        if isinstance(first_escape, S.SetPriority):
            # pan 6.5.2 counts other states for it (a random model: 65 where this
            # front end's reading gives 84); not understood, so not accepted
            raise self.error("unsupported construct: set_priority as the first statement of an unless escape",
                             first_escape.pos)
        number = len(self.unlesses) + 1
        first = self.next_loc
        entry = self.new()
        record = (number, [], entry)
        self.unlesses.append(record)
        if isinstance(s.main, S.Block) and s.main.kind == "block":
            # Spin 6.5.2: a { } main part starting with a do has no state of its own
            # before the loop (unlike a { } elsewhere): { do .. od } unless {..} has the
            # states of do .. od unless {..}
            self.seq(s.main.body, at, cont, brk, False)
        else:
            self.stmt(s.main, at, cont, brk, False)
        record[1].extend([at] + list(range(first + 1, self.next_loc + 1)))
        record[1].remove(entry)
        self.stmt(s.escape, entry, cont, brk, False)

    def choice(self, s: S.Choice, at: int, cont: int, brk: Optional[int]) -> None:
        # else siblings are set in build_graph, once every option at ``at`` exists.
        for option in s.options:
            self.seq(_prune_skips(option), at, cont, brk, True)


def _starts_with_loop(seq: S.Sequence) -> bool:
    """The first statement of ``seq`` is a ``do`` (maybe labelled)."""
    stmts = [s for s in seq.stmts if s is not None and not isinstance(s, S.Decl)]
    first = stmts[0] if stmts else None
    while isinstance(first, S.Labeled):
        first = first.stmt
    return isinstance(first, S.Choice) and first.loop


def _last_element(seq: S.Sequence):
    """The element Spin marks ``L_ATOM`` in an atomic sequence: its last statement, looked
    for inside a last nested ``atomic`` or ``{ }`` block (flow.c ``make_atomic``)."""
    stmts = [s for s in seq.stmts if s is not None and not isinstance(s, S.Decl)]
    if not stmts:
        return None
    last = stmts[-1]
    while isinstance(last, S.Labeled):
        last = last.stmt
    if isinstance(last, S.Block) and last.kind in ("atomic", "block"):
        inner = _last_element(last.body)
        return inner if inner is not None else last
    return last


def _is_skip(st) -> bool:
    """Spin's ``is_skip``: ``skip``/``true``/``(1)`` or a print statement."""
    return isinstance(st, S.Printf) or (isinstance(st, S.ExprStmt) and isinstance(st.expr, S.Num)
                                        and st.expr.value == 1)


def _prune_skips(option: S.Sequence) -> S.Sequence:
    """The option without the redundant skips Spin removes (flow.c ``check_sequence``, even
    with -o3): in a run of unlabelled skips and prints inside an ``if``/``do`` option, every
    skip after the first is dropped unless it is the option's first or last statement."""
    stmts = [st for st in option.stmts if st is not None and not isinstance(st, S.Decl)]
    if len(stmts) < 3:
        return option
    first, last = stmts[0], stmts[-1]
    drop = set()
    run = 0
    for st in stmts:
        if _is_skip(st):
            run += 1
            if run > 1 and not isinstance(st, S.Printf) and st is not first and st is not last:
                drop.add(id(st))
        else:
            run = 0
    if not drop:
        return option
    return dataclasses.replace(option, stmts=tuple(st for st in option.stmts if id(st) not in drop))


def _check_dstep(b: _Builder, body: S.Sequence) -> None:
    """What Spin 6.5.2 refuses inside a ``d_step``: ``run``, a label on its first statement
    or on an option's first statement ("label placed incorrectly"), a ``goto`` to a label
    outside it ("jump into d_step sequence").  Its labels are kept in ``b.dstep_labels``: a
    ``goto`` from outside to one of them is refused too (``build_graph``)."""
    inside: set[str] = set()
    gotos: list[S.Goto] = []
    _dstep_walk(b, body, inside, gotos, head="dstep")
    for g in gotos:
        if g.label not in inside:
            raise b.error(f"goto {g.label} leaves the d_step (Spin rejects it too: "
                          "jump into d_step sequence)", g.pos)
    b.dstep_labels |= inside


def _dstep_walk(b: _Builder, body: S.Sequence, inside: set, gotos: list, head) -> None:
    stmts = [s for s in body.stmts if s is not None and not isinstance(s, S.Decl)]
    for i, st in enumerate(stmts):
        _dstep_stmt(b, st, inside, gotos, head if i == 0 else False)


def _dstep_stmt(b: _Builder, st, inside: set, gotos: list, head) -> None:
    """``head``: "dstep" for the d_step's first statement, True for an option's, else False."""
    if isinstance(st, S.Labeled):
        if head == "dstep":
            raise b.error(f"label {st.label} on the first statement of a d_step (Spin rejects it "
                          "too: label placed incorrectly)", st.pos)
        if head:
            # Spin 6.5.2 prints "label placed incorrectly" and still writes a pan.c
            raise b.error(f"label {st.label} on the first statement of an option inside a d_step "
                          "(Spin reports it as an error too: label placed incorrectly)", st.pos)
        if st.label in inside:
            raise b.error(f"label {st.label} defined twice", st.pos)
        inside.add(st.label)
        _dstep_stmt(b, st.stmt, inside, gotos, False)
    elif isinstance(st, S.Goto):
        gotos.append(st)
    elif isinstance(st, S.Run):
        raise b.error("run inside d_step (Spin rejects it too: run operator in d_step)", st.pos)
    elif isinstance(st, S.Block):
        _dstep_walk(b, st.body, inside, gotos, head)
    elif isinstance(st, S.Choice):
        for o in st.options:
            _dstep_walk(b, o, inside, gotos, True)


#: Promela's own types; a declaration of any other type is of a typedef.
_BASIC_TYPES = frozenset(("bit", "bool", "byte", "pid", "mtype", "short", "int", "unsigned", "chan"))


def declarations_as_steps(body: S.Sequence, error) -> tuple[S.Sequence, tuple[S.VarDecl, ...],
                                                              tuple[S.VarDecl, ...]]:
    """``(body', declared, created)``: Spin 6 reads a local declaration that follows a
    statement (or opens a nested block, an option or a d_step) as a statement that sets the
    variable to its initialiser (0 without one) each time control passes it -- only element 0
    of an array (pan.m: ``y[0] = 1``), nothing for a typedef variable (an empty step).
    ``body'`` has those statements instead of the declarations and no ``Decl`` left;
    ``declared`` is every local, ``created`` those before the body's first statement,
    which Spin sets when the process is created.  ``error(message, pos)`` makes the error
    for a channel initialised there (Spin refuses it too)."""
    declared: list[S.VarDecl] = []
    created: list[S.VarDecl] = []

    def steps(d: S.VarDecl) -> list:
        if isinstance(d.init, S.ChanInit):
            raise error(f"place initialized chan decl of '{d.name}' at start of proctype (as Spin requires)",
                        d.pos)
        if d.type not in _BASIC_TYPES:
            return [S.Printf(d.pos)]
        if isinstance(d.init, tuple):
            raise error("cannot use an array list initializer here (as Spin says: after the body's first "
                        "statement)", d.pos)
        target = S.VarRef(d.name, S.Num(0, d.pos) if d.size is not None else None, None, d.pos)
        value = d.init if d.init is not None and not isinstance(d.init, tuple) else S.Num(0, d.pos)
        return [S.Assign(target, value, d.pos)]

    def sequence(seq: S.Sequence, top: bool) -> S.Sequence:
        out: list = []
        leading = top
        for st in seq.stmts:
            if isinstance(st, S.Decl):
                declared.extend(st.vars)
                if leading:
                    created.extend(st.vars)
                else:
                    out.extend(x for d in st.vars for x in steps(d))
                continue
            if st is not None:
                leading = False
            out.append(statement(st))
        return dataclasses.replace(seq, stmts=tuple(out))

    def statement(st):
        if isinstance(st, S.Labeled):
            return dataclasses.replace(st, stmt=statement(st.stmt))
        if isinstance(st, S.Block):
            return dataclasses.replace(st, body=sequence(st.body, False))
        if isinstance(st, S.Choice):
            return dataclasses.replace(st, options=tuple(sequence(o, False) for o in st.options))
        if isinstance(st, S.Unless):  # (was: declarations inside either part were undeclared)
            return dataclasses.replace(st, main=statement(st.main), escape=statement(st.escape))
        return st

    return sequence(body, True), tuple(declared), tuple(created)


def _escapes(b: _Builder, trans: list[dict]) -> dict[int, list[int]]:
    """unless: each location of a main part gets copies of its escape's first steps (added
    to ``trans``), after the else siblings are set (an else beside them is preempted by the
    escape, not its sibling); returns each such location's unless numbers, outer first."""
    groups: dict[int, list[int]] = {}
    for number, main, escape_entry in b.unlesses:
        firsts = [t for t in trans if t["src"] == b.root(escape_entry) and t.get("escape", 0) == 0]
        for loc in dict.fromkeys(b.root(x) for x in main if x not in b.alias):
            groups.setdefault(loc, []).append(number)
            trans.extend(dict(t, src=loc, escape=number, siblings=()) for t in firsts)
    return groups


def _check_jumps_to_dsteps(b: _Builder) -> None:
    """Refuse, as Spin 6.5.2 does ("jump into d_step sequence"), a ``goto`` to a d_step
    statement's start and a ``break`` outside atomic sequences to one (``dstep_entries``;
    the jumps resolved: ``b.alias`` is complete)."""
    for target, what, pos in [(b.labels.get(label), f"goto {label}", pos) for _, label, pos, _, _ in b.pending_gotos] \
            + [(target, "break", pos) for target, pos, block in b.breaks if block == 0]:
        if target is not None and b.root(target) in b.dstep_entries - b.atomic_starts:
            raise b.error(f"{what} jumps to the start of a d_step (Spin rejects it too: jump into d_step "
                          "sequence)", pos)


def build_graph(name: str, body: S.Sequence, path: str, origin, visible: frozenset[str] = frozenset()) -> Graph:
    """The automaton of ``body``; ``origin`` maps preprocessed lines to source lines;
    ``visible``: the labels of ``body`` that remote references ``P@L`` name."""
    b = _Builder(name, path, origin, visible)
    body, declared, created = declarations_as_steps(body, b.error)
    b.locals = list(declared)
    entry = b.new()
    end = b.new()
    b.seq(body, entry, end, None, False)
    for ref, label, pos, is_step, block in b.pending_gotos:
        if label not in b.labels and label in b.dstep_labels:
            raise b.error(f"goto {label} jumps into a d_step (Spin rejects it too: jump into d_step "
                          "sequence)", pos)
        if label not in b.labels:
            raise b.error(f"goto to undefined label {label}", pos)
        # Spin (flow.c, checked on pan.t): a goto inside an atomic sequence is marked iff its
        # label is inside one too (its own, even as its last element, or another); a goto to
        # a label outside every atomic sequence, or from outside them, is unmarked.
        mark = block != 0 and b.label_block[label] != 0
        if is_step:
            b.trans[ref]["keep"] = mark
        else:
            b.jump_keep[ref] = mark
        if is_step:
            b.trans[ref]["dst"] = b.labels[label]
        else:
            if b.root(b.labels[label]) == b.root(ref):
                raise b.error(f"goto {label} jumps to itself (an infinite loop without steps)", pos)
            b.alias[ref] = b.labels[label]
    _check_jumps_to_dsteps(b)
    for a in list(b.alias):
        seen = set()
        x = a
        while x in b.alias:
            if x in seen:
                raise InputError(f"{name}: a cycle of jumps without any statement", path, 0, 0)
            seen.add(x)
            x = b.alias[x]
    trans = []
    for t in b.trans:
        # The last jump element on the way to the destination decides atomicity (Spin).
        keep, x = t["keep"], t["dst"]
        while x in b.alias:
            keep = b.jump_keep.get(x, keep)
            x = b.alias[x]
        trans.append(dict(t, src=b.root(t["src"]), dst=b.root(t["dst"]), keep=keep))
    # Innermost first: a copied location may itself be a copy (a block in an option head).
    for target, source in reversed(b.copies):
        for k, t in enumerate(list(trans)):
            if t["src"] == b.root(source):
                trans.append(dict(t, src=b.root(target)))
    # An else is executable when no other transition leaving its location is (Spin), which
    # includes the options of a nested if that starts an option: siblings are computed on
    # the finished graph, not per choice.
    for k, t in enumerate(trans):
        if t["kind"] != "else":
            continue
        others = tuple(j for j, u in enumerate(trans) if j != k and u["src"] == t["src"])
        for j in others:
            if trans[j]["kind"] == "else":
                second = max(k, j)
                path_, line = origin(trans[second]["line"])
                raise InputError("two else options leave the same point (Spin: inherits 2 'else' "
                                 "statements)", path_ or path, line, trans[second]["stmt"].pos.column)
        t["siblings"] = others
    groups = _escapes(b, trans)
    transitions = tuple(
        Transition(t["src"], t["dst"], t["kind"], t["stmt"], t["line"], t["siblings"], t["keep"], t.get("escape", 0))
        for t in trans
    )
    entry_r, end_r = b.root(entry), b.root(end)
    transitions += (Transition(end_r, 0, "end", None, 0),)
    locations = tuple(sorted({b.root(x) for x in range(1, b.next_loc + 1)}))
    holding = frozenset(t.dst for t in transitions if t.keep)
    return Graph(
        name, entry_r, end_r, locations, transitions, holding,
        frozenset(b.root(x) for x in b.end_labels) | {end_r},
        tuple((k, b.root(v)) for k, v in b.labels.items()), tuple(b.locals), created,
        tuple((loc, tuple(ns)) for loc, ns in sorted(groups.items())),
    )
