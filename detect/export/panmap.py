"""The map from our program counters to pan's state numbers, for the generators of
``symdetect spin`` that rename a process's program counter (symmetric branches inside one
process: snoopy's bus, TopSPIN's mailer, diskhead's disk_sched).

pan numbers each proctype's automaton its own way.  Its automaton as pan runs it is what
``./pan -d`` prints (after pan's own jump removal): per transition its source and target
state, its transition number (``tr``; ``pan.t``'s ``tr_2_src`` gives the source line of
each numbered one), flags (atomic, d_step, the source state's labels, local/global) and the
statement's text.  Ours is read off the summands of a process: the value of its pc in the
guard and the value assigned, and the origin's line.

``match`` walks both automata from their start states in step: a pan transition pairs with
one of ours of the same source line (``else``, ``goto``, ``break`` and ``-end-`` carry no
line of their own in pan: any line), their targets pair in turn; the walk must pair every
state reached one to one, and exactly one such pairing may exist (an ambiguity -- two
options on one line leading to alike automata -- is refused: it would be a guess).  A pan
state whose only transition is a jump, reached by atomic or d_step steps only (kept by pan
inside atomic sequences, where we fold the jump into the step before) is passed through: its transitions' sources lead on to the
jump's target, and ``via`` keeps the states passed so that they are renamed too.

``automorphism`` then checks that the renaming a generator induces on pan's states (through
the map) maps pan's transition table onto itself, transition for transition, with the same
flags and the same statement text up to the generator's renaming of names (one consistent
renaming of identifiers, which for the model's global variables and channels must be the
generator's own) and of numbers, each evaluated: equal, or a pair the generator renames (a
value of one of its variables, an array index it moves, a pid, a channel's number).  The semantic guarantee is our model's: the generator is an
automorphism of it (verified at detection), and the map pairs each of pan's transitions with
ours of the same line in the same place of the automaton.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Optional

from detect import ir

#: pan's transition numbers of the jumps (``.(goto)``, ``goto``, ``break``) and ``else``
JUMP_TR, ELSE_TR = 1, 2
_STATE_CAP = 2000
_WORK_CAP = 200_000


class PcMapError(Exception):
    """Our automaton and pan's could not be paired one to one: ``str`` is one line."""


@dataclass(frozen=True)
class PanEdge:
    """One transition of pan's automaton (``pan -d``), ``line`` its source line (None where
    pan gives none of its own); ``via``: the jump-only states passed on the way to ``dst``."""

    src: int
    dst: int
    tr: int
    line: Optional[int]
    text: str
    flags: str
    via: tuple[int, ...] = ()
    #: pan's statement id (``[id N]``): the same with and without statement merging, where
    #: the transition numbers differ
    ident: int = -1


@dataclass(frozen=True)
class PanAutomaton:
    """A proctype's automaton in pan: its start state and transitions (jump-only states
    passed through: ``PanEdge.via``)."""

    proctype: str
    start: int
    edges: tuple[PanEdge, ...]

    def states(self) -> set[int]:
        return {self.start} | {e.src for e in self.edges} | {e.dst for e in self.edges if e.dst != 0}

    def passed(self) -> set[int]:
        """The jump-only states (never stored: a jump cannot block)."""
        return {s for e in self.edges for s in e.via}


_D_LINE = re.compile(r"^\s*state\s+(\d+)\s+-\(tr\s+(\d+)\)->\s+state\s+(\d+)\s+\[id\s+(\d+)\s+tp\s+\d+\]\s+"
                     r"\[([^\]]*)\]\s+(\S*?):(\d+)\s+=>\s?(.*)$")


def _statement_lines(pan_t: str, pan_c: str) -> dict[tuple[int, int], int]:
    """(proctype number, statement id) -> source line: the line pan.c's ``src_ln<T>`` gives
    the state of pan.t whose transition the statement is (before pan removes jumps; ``pan -d``
    prints the line of the state a transition leaves after that, for a loop's options the
    loop's)."""
    src_ln = {int(t): [int(x) for x in re.findall(r"-?\d+", body)]
              for t, body in re.findall(r"short src_ln(\d+) \[\] = \{([^}]*)\}", pan_c)}
    out: dict[tuple[int, int], int] = {}
    current: Optional[tuple[int, int]] = None
    for m in re.finditer(r"trans\[\s*(\d+)\]\[(\d+)\]\s*=\s*settr\((\d+),|T->nxt\s*=\s*settr\((\d+),", pan_t):
        if m.group(1) is not None:
            current = (int(m.group(1)), int(m.group(2)))
            ident = int(m.group(3))
        elif current is not None:
            ident = int(m.group(4))
        else:
            continue
        t, state = current
        lines = src_ln.get(t, [])
        if state < len(lines):
            out.setdefault((t, ident), lines[state])
    return out


def read_automata(pan_d: str, pan_t: str, pan_c: str) -> dict[str, PanAutomaton]:
    """pan's automata by proctype name (``:init:`` for init; claims left out), from the
    output of ``pan -d``, pan.t and pan.c (start states, lines)."""
    lines = _statement_lines(pan_t, pan_c)
    numbers = {name: int(t) for t, name in re.findall(r"/\* proctype (\d+): (\S+) \*/", pan_t)}
    starts = {name: int(s) for name, s in re.findall(
        r"case \d+:\s*/\* (\S+) \*/\s*\n(?:[^\n]*\n){0,2}?\s*\(\(P\d+ \*\)pptr\(h\)\)->_p = (\d+);", pan_c)}
    raw: dict[str, list[PanEdge]] = {}
    current: Optional[str] = None
    for row in pan_d.splitlines():
        if row.startswith("proctype "):
            current = row.split(None, 1)[1].strip()
            raw[current] = []
        elif row.strip() == "init":
            current = ":init:"
            raw[current] = []
        elif row and not row[0].isspace():
            current = None
        elif current is not None:
            m = _D_LINE.match(row)
            if m is None:
                continue
            src, tr, dst, ident = int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))
            text = m.group(8).strip()
            # jumps and -end- have no line of their own in our automaton's terms: any line
            wild = _is_jump(tr, text) or text == "-end-"
            line = None if wild else lines.get((numbers.get(current, -1), ident))
            raw[current].append(PanEdge(src, dst, tr, line, text, m.group(5), (), ident))
    out = {}
    for name, edges in raw.items():
        if name in starts:
            out[name] = PanAutomaton(name, starts[name], _pass_jumps(edges, starts[name]))
    return out


def _pass_jumps(edges: list[PanEdge], start: int) -> tuple[PanEdge, ...]:
    """The transitions with every jump-only state (one transition, a jump) passed through."""
    out_of: dict[int, list[PanEdge]] = {}
    for e in edges:
        out_of.setdefault(e.src, []).append(e)
    into: dict[int, list[PanEdge]] = {}
    for e in edges:
        into.setdefault(e.dst, []).append(e)
    # a jump pan keeps inside an atomic sequence or after a d_step (reached only by such steps):
    # we fold it into the step before; a jump elsewhere (a skip pan turned into one) is a step
    jumps = {s for s, es in out_of.items() if len(es) == 1 and _is_jump(es[0].tr, es[0].text) and s != start
             and into.get(s) and all(e.flags[:1] in ("A", "D") for e in into[s])}

    def follow(e: PanEdge) -> PanEdge:
        via, dst, flags, seen = list(e.via), e.dst, e.flags, set()
        while dst in jumps and dst not in seen:
            seen.add(dst)
            via.append(dst)
            jump = out_of[dst][0]
            # whether the step keeps atomic control is the last element's (pan's L_ATOM)
            flags = _flags_after(flags, jump.flags)
            dst = jump.dst
        return PanEdge(e.src, dst, e.tr, e.line, e.text, flags, tuple(via), e.ident)

    return tuple(dict.fromkeys(follow(e) for e in edges if e.src not in jumps))


def _is_jump(tr: int, text: str) -> bool:
    """A jump of pan's (``.(goto)``, ``goto L``, ``break``): transition number 1, which pan
    also gives ``skip`` (``(1)``), a step of its own in our automaton too."""
    return tr == JUMP_TR and (text in (".(goto)", "break") or text.startswith("goto "))


def _flags_after(first: str, jump: str) -> str:
    """The flags of a step followed by a jump: atomicity from the jump, the rest the step's."""
    return (jump[:1] or "-") + first[1:]


def same_numbering(merged: PanAutomaton, plain: PanAutomaton) -> Optional[str]:
    """None if each transition of ``merged`` (pan with statement merging, Spin's default) is a
    chain of ``plain``'s (``-o3``): from the same state, the same statement (``ident``) first,
    then through states of one transition each, to the same state -- pan numbers its states
    alike with and without merging, merging only skips some, so a pairing of our program
    counters with ``plain``'s states holds for ``merged``; else why not, in a few words."""
    if merged.start != plain.start:
        return f"pan's start state of {plain.proctype} is {plain.start} without statement merging, {merged.start} with"
    out_of: dict[int, list[PanEdge]] = {}
    for e in plain.edges:
        out_of.setdefault(e.src, []).append(e)
    for e in merged.edges:
        first = [f for f in out_of.get(e.src, []) if f.ident == e.ident]
        if len(first) != 1:
            return f"pan's merged transition {e.src}->{e.dst} '{e.text}' of {plain.proctype} starts no transition of -o3's"
        at, seen = first[0].dst, set()
        while at != e.dst:
            nxt = out_of.get(at, [])
            if len(nxt) != 1 or at in seen:
                return (f"pan's merged transition {e.src}->{e.dst} '{e.text}' of {plain.proctype} is no chain of "
                        "-o3's transitions")
            seen.add(at)
            at = nxt[0].dst
    return None


def passed_over(merged: PanAutomaton, plain: PanAutomaton) -> set[int]:
    """The states of ``plain`` inside ``merged``'s chains (``same_numbering`` holding): pan
    with statement merging passes over them."""
    out_of: dict[int, list[PanEdge]] = {}
    for e in plain.edges:
        out_of.setdefault(e.src, []).append(e)
    inside: set[int] = set()
    for e in merged.edges:
        first = [f for f in out_of.get(e.src, []) if f.ident == e.ident]
        at = first[0].dst if len(first) == 1 else e.dst
        while at != e.dst and at not in inside and len(out_of.get(at, [])) == 1:
            inside.add(at)
            at = out_of[at][0].dst
    return inside


_CASE = re.compile(r"^\tcase (\d+): // STATE", re.M)
_ANY_CASE = re.compile(r"^\tcase ", re.M)
_DEAD = re.compile(r"/\* dead \d+: (\w+) \*/")


def dead_resets(pan_m: str) -> dict[int, tuple[tuple[str, int], ...]]:
    """pan's transition number (``pan -d``'s ``tr``, pan.m's ``case``) -> the local variables
    its code resets, with their values, in order: Spin's data-flow optimisation (on unless
    ``-o1`` or ``-o2``) writes ``/* dead N: x */`` and ``((Pk *)_this)->x = 0;`` where ``x``
    is dead after the statement (not read before it is written again), so that states
    differing only in a dead value are one.  ``PcMapError`` where a reset is not of that form."""
    out: dict[int, tuple[tuple[str, int], ...]] = {}
    starts = [m.start() for m in _ANY_CASE.finditer(pan_m)] + [len(pan_m)]
    for m in _CASE.finditer(pan_m):
        end = next(x for x in starts if x > m.start())
        body = pan_m[m.start():end]
        resets = []
        for d in _DEAD.finditer(body):
            name = d.group(1)
            a = re.compile(r"\(\(P\d+ \*\)_this\)->" + name + r" = (-?\d+);").search(body, d.end())
            if a is None:
                raise PcMapError(f"pan's reset of the dead variable {name} (transition {m.group(1)}) is not "
                                 "an assignment of a constant")
            resets.append((name, int(a.group(1))))
        if resets:
            out[int(m.group(1))] = tuple(resets)
    return out


def hidden_globals(pan_h: str) -> tuple[str, ...]:
    """The globals Spin's dead-variable elimination (on unless ``-o2``) keeps out of the state
    vector (written, never read): pan.h's ``/* hidden variable: */`` declarations."""
    return tuple(re.findall(r"/\* hidden variable: \*/\s*[\w ]+?\b(\w+)\s*(?:\[[^\]]*\])?\s*;", pan_h))


def step_of(summand, process: ir.Process, pc: str) -> Optional[tuple[int, int, int]]:
    """``(src, dst, line)`` of ``process``'s transition that ``summand`` takes (as
    ``our_automaton`` reads it), or None where the summand is no such transition of it."""
    tests = [v for v in (_pc_test(c, pc) for c in _conjuncts(summand.guard)) if v is not None]
    value, other = _assigned(summand.program, pc)
    if other or len(set(tests)) != 1 or value is None or tests[0] == 0:
        return None
    return tests[0], value, _line(summand, process)


def _line(summand, process: ir.Process) -> int:
    """The source line of ``process``'s part of ``summand`` (a rendezvous has one per owner)."""
    if process.name not in summand.owners:
        return summand.origin.first().line
    locs = summand.origin.locations
    i = summand.owners.index(process.name)
    return locs[i].line if i < len(locs) else (locs[0].line if locs else 0)


def pan_dump(out_dir: str) -> str:
    """The output of ``pan -d`` (the automata pan runs) for the pan.c in ``out_dir``."""
    gcc = shutil.which("gcc")
    if gcc is None:
        raise PcMapError("gcc is needed to read pan's automata (pan -d)")
    exe = os.path.join(out_dir, "symdetect_pan_d")
    try:
        build = subprocess.run([gcc, "-w", "-O0", "-o", exe, "pan.c"], cwd=out_dir, capture_output=True,
                               text=True, timeout=600)
        if build.returncode != 0:
            raise PcMapError("gcc failed on pan.c (to read pan's automata with pan -d)")
        run = subprocess.run([exe, "-d"], cwd=out_dir, capture_output=True, text=True, timeout=120)
        return run.stdout
    finally:
        if os.path.exists(exe):
            os.remove(exe)


# ---------------------------------------------------------------------------------------
# ours


@dataclass(frozen=True)
class OurAutomaton:
    """A process's automaton in our model: start pc and transitions ``(src, dst, line)``."""

    process: str
    pc: str
    start: int
    edges: tuple[tuple[int, int, int], ...]


def _conjuncts(e):
    if isinstance(e, ir.Binary) and e.op == "&&":
        yield from _conjuncts(e.left)
        yield from _conjuncts(e.right)
    else:
        yield e


def _pc_test(e, pc: str) -> Optional[int]:
    if isinstance(e, ir.Binary) and e.op == "==":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            if isinstance(a, ir.Name) and a.name == pc and isinstance(b, ir.Const):
                return b.value
    return None


def _mentions(e, pc: str) -> bool:
    if isinstance(e, ir.Name):
        return e.name == pc
    return any(_mentions(c, pc) for c in _children(e))


def _children(e):
    if isinstance(e, ir.Binary):
        return (e.left, e.right)
    if isinstance(e, ir.Unary):
        return (e.operand,)
    if isinstance(e, ir.Ite):
        return (e.cond, e.then, e.else_)
    if isinstance(e, ir.Index):
        return (e.index,)
    return ()


def _assigned(program, pc: str) -> tuple[Optional[int], bool]:
    """(the constant the program's top level assigns to ``pc``, whether it assigns it
    anywhere else or to a non-constant)."""
    value, other = None, False
    for st in program:
        if isinstance(st, ir.Assign) and isinstance(st.target, ir.Name) and st.target.name == pc:
            if isinstance(st.value, ir.Const):
                value = st.value.value
            else:
                other = True
        elif isinstance(st, (ir.If, ir.While)):
            inner = (st.then + st.else_) if isinstance(st, ir.If) else st.body
            v, o = _assigned(inner, pc)
            other = other or o or v is not None
    return value, other


def our_automaton(model: ir.SequentialModel, process: ir.Process) -> OurAutomaton:
    """``process``'s automaton read off the model's summands (PcMapError where a summand
    tests or sets its pc in a way this reading does not follow)."""
    pcs = [v.name for v in model.variables if v.owner == process.name and v.name.endswith(".pc")]
    if len(pcs) != 1:
        raise PcMapError(f"no program counter found for {process.name}")
    pc = pcs[0]
    edges: set[tuple[int, int, int]] = set()
    starts: set[int] = set()
    init = model.variable(pc).init
    if init and init[0] and init[0][0]:
        starts.add(init[0][0])
    for s in model.summands:
        tests = [v for v in (_pc_test(c, pc) for c in _conjuncts(s.guard)) if v is not None]
        value, other = _assigned(s.program, pc)
        if other:
            raise PcMapError(f"a step of {process.name} sets its program counter to a computed value")
        if not tests:
            if value and process.name not in s.owners:
                starts.add(value)  # a run (or init's start-up step): the process starts here
            continue
        if len(set(tests)) != 1:
            continue  # contradictory tests: the summand never fires
        src = tests[0]
        if value is None or src == 0:
            continue  # a step that leaves the pc (a fault's, a stutter's): no transition of pan's
        edges.add((src, value, _line(s, process)))
    if len(starts) != 1:
        raise PcMapError(f"the start of {process.name} is not one program counter ({sorted(starts)})")
    return OurAutomaton(process.name, pc, starts.pop(), tuple(sorted(edges)))


# ---------------------------------------------------------------------------------------
# the pairing


def match(pan: PanAutomaton, ours: OurAutomaton) -> dict[int, int]:
    """pan state -> our pc, one to one on the states reached from the starts, with 0 (no
    process) -> 0; PcMapError if there is no such pairing or more than one."""
    pan_out: dict[int, dict[tuple[int, Optional[int]], None]] = {}
    for e in pan.edges:
        pan_out.setdefault(e.src, {})[(e.dst, e.line)] = None
    our_out: dict[int, dict[tuple[int, int], None]] = {}
    for a, b, line in ours.edges:
        our_out.setdefault(a, {})[(b, line)] = None
    if len(pan.states()) > _STATE_CAP:
        raise PcMapError(f"pan's automaton of {pan.proctype} has more than {_STATE_CAP} states")
    solutions: list[dict[int, int]] = []
    work = [0]

    def pairings(P, O, used, acc):
        """Bijections between pan's transitions P and ours O, lines agreeing."""
        if not P:
            yield list(acc)
            return
        (t, line), rest = P[0], P[1:]
        for j, (b, our_line) in enumerate(O):
            if j in used or (line is not None and line != our_line):
                continue
            acc.append(((t, line), (b, our_line)))
            used.add(j)
            yield from pairings(rest, O, used, acc)
            used.discard(j)
            acc.pop()

    def solve(phi: dict[int, int], inv: dict[int, int], agenda: list[tuple[int, int]]):
        work[0] += 1
        if work[0] > _WORK_CAP or len(solutions) > 1:
            return
        if not agenda:
            solutions.append(phi)
            return
        (s, a), rest = agenda[0], agenda[1:]
        P = list(pan_out.get(s, {}))
        O = list(our_out.get(a, {}))
        if len(P) != len(O):
            return
        # lined transitions first: the wild ones (else, jumps) take what is left
        P.sort(key=lambda x: x[1] is None)
        for pairing in pairings(P, O, set(), []):
            phi2, inv2, new, ok = dict(phi), dict(inv), [], True
            for (t, _), (b, _) in pairing:
                if t in phi2 or b in inv2:
                    if phi2.get(t) != b or inv2.get(b) != t:
                        ok = False
                        break
                    continue
                phi2[t], inv2[b] = b, t
                new.append((t, b))
            if ok:
                solve(phi2, inv2, rest + new)
            if len(solutions) > 1 or work[0] > _WORK_CAP:
                return

    solve({pan.start: ours.start, 0: 0}, {ours.start: pan.start, 0: 0}, [(pan.start, ours.start)])
    if work[0] > _WORK_CAP:
        raise PcMapError(f"pairing pan's automaton of {pan.proctype} with {ours.process}'s took too long")
    if not solutions:
        raise PcMapError(f"pan's automaton of {pan.proctype} does not pair with {ours.process}'s state for state")
    if len(solutions) > 1:
        raise PcMapError(f"pan's automaton of {pan.proctype} pairs with {ours.process}'s in more than one way "
                         "(options on one line)")
    phi = solutions[0]
    missing = pan.states() - set(phi)
    if missing:
        raise PcMapError(f"pan's states {sorted(missing)[:5]} of {pan.proctype} are not reached from its start")
    return phi


# ---------------------------------------------------------------------------------------
# the check


_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|\S")


def _shape(text: str) -> tuple[list[str], list[int]]:
    """The text's tokens with numbers as ``#``, and the positions of its identifiers."""
    tokens = _TOKEN.findall(text)
    shape = ["#" if t.isdigit() else t for t in tokens]
    return shape, [i for i, t in enumerate(tokens) if t[0].isalpha() or t[0] == "_"]


def automorphism(a: PanAutomaton, b: PanAutomaton, sigma: dict[int, int], names: dict[str, str],
                 allowed, live_b: Optional[set[int]] = None, numbers=None) -> Optional[str]:
    """None if ``sigma`` (pan states of ``a`` -> of ``b``, jump-only states included) maps
    ``a``'s transitions onto ``b``'s: the same flags, the same text up to a renaming of
    identifiers (collected in ``names``, consistent across calls for one generator; each
    pair checked by ``allowed(x, y)``) and of numbers (a number ``x`` opposite ``y``: equal, or
    ``numbers(x, y)`` -- the generator renames ``x`` to ``y``: a value, an array index, a pid or
    a channel's number; default: equal only); else why not, in a few words.  Only the
    transitions between states of ``sigma`` (of ``a``) and of ``live_b`` (of ``b``; default:
    all) count: the others join states no reachable state has."""
    def number_ok(x: str, y: str) -> bool:
        return int(x) == int(y) or (numbers is not None and numbers(int(x), int(y)))

    def live(e: PanEdge, states) -> bool:
        return e.src in states and (e.dst == 0 or e.dst in states)

    mine = [e for e in a.edges if live(e, sigma)]
    theirs = [e for e in b.edges if live_b is None or live(e, live_b)]
    by_key: dict[tuple[int, int], list[PanEdge]] = {}
    for e in theirs:
        by_key.setdefault((e.src, e.dst), []).append(e)
    if len(mine) != len(theirs):
        return f"{a.proctype} and {b.proctype} have {len(mine)} and {len(theirs)} live transitions in pan"
    used: set[PanEdge] = set()
    back = {y: x for x, y in names.items()}
    for e in mine:
        key = (sigma[e.src], sigma.get(e.dst, 0))
        shape, idents = _shape(e.text)
        tokens = _TOKEN.findall(e.text)
        found = None
        for f in by_key.get(key, []):
            if f in used or f.flags != e.flags or len(f.via) != len(e.via):
                continue
            # a jump-only state passed maps to the one its image passes (sigma grows on success)
            if any(sigma.get(x, y) != y for x, y in zip(e.via, f.via)):
                continue
            fshape, _ = _shape(f.text)
            ftokens = _TOKEN.findall(f.text)
            if len(fshape) != len(shape):
                continue
            pairs = {}
            ok = True
            for i, (x, y) in enumerate(zip(shape, fshape)):
                if i in idents:
                    if not (y[0].isalpha() or y[0] == "_"):
                        ok = False
                    elif names.get(x, y) != y or back.get(y, x) != x or pairs.get(x, y) != y or not allowed(x, y):
                        ok = False
                    else:
                        pairs[x] = y
                elif x == "#":
                    # a number: evaluated, it must be the same or one the generator renames onto the other
                    ok = y == "#" and number_ok(tokens[i], ftokens[i])
                elif x != y:
                    ok = False
                if not ok:
                    break
            if ok:
                found = f
                sigma.update(zip(e.via, f.via))
                for x, y in pairs.items():
                    names[x], back[y] = y, x
                break
        if found is None:
            return (f"pan's transition {e.src}->{e.dst} '{e.text}' of {a.proctype} has no image among "
                    f"{b.proctype}'s transitions {key[0]}->{key[1]}")
        used.add(found)
    return None
