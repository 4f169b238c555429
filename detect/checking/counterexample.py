"""Counterexamples in the user's terms, trails on disk, and their replay.

A trace (``detect.statespace.explore.TraceStep``) names each transition by its summand and
binding; here each step becomes a ``Move``: the process instance that moved (``user[2]``, pid
2), the source place (``file:line``) and the source text of the statement, rule or transition
there, and the variables the step changed.  A ``Trail`` is the JSON form ``explore --trail``
writes, and ``replay`` takes its steps again on the model, checking each one, as ``spin -t``
does with a ``.trail`` file.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from detect.ir import SequentialModel, literal_label, state_slots
from detect.statespace.compile import CompiledModel, compile_model
from detect.statespace.explore import TraceStep

TRAIL_FORMAT = "symdetect-trail-1"


@dataclass(frozen=True)
class Move:
    """One step of a counterexample as people read it.

    ``process`` is the instance that moved (``""`` when the step is not one process's, e.g. a
    CSP# event of an indexed family, whose arguments are in ``event``), ``pid`` its number in
    the model's own data (None when it has none), ``where`` ``file:line`` (joined for a
    hand-shake), ``statement`` the source text there, ``changes`` the literals that differ from
    the previous state, and ``fault`` the run-time error the step raised (its state is then
    the state it failed in)."""

    event: str
    process: str
    pid: Optional[int]
    where: str
    statement: str
    changes: tuple[str, ...]
    fault: Optional[str] = None


def _source_lines(path: str, cache: dict[str, list[str]]) -> list[str]:
    if path not in cache:
        try:
            cache[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[path] = []
    return cache[path]


#: Characters of a source line shown for a step (a CSP# definition can fill a line).
EXCERPT = 60


def _excerpt(line: str, column: int) -> str:
    """The source text of a step: ``line`` from ``column`` (1-based; 0 for the whole line),
    white space collapsed, cut at ``EXCERPT`` characters."""
    text = " ".join((line[column - 1:] if column > 0 else line).split())
    return text if len(text) <= EXCERPT else text[:EXCERPT - 1].rstrip() + "…"


def describe(model: SequentialModel, trace: Sequence[TraceStep]) -> tuple[Move, ...]:
    """The moves of ``trace`` after its first (initial) entry."""
    slots = state_slots(model)
    pids = {p.name: p.pid for p in model.processes}
    sources: dict[str, list[str]] = {}
    moves = []
    for before, step in zip(trace, trace[1:]):
        summand = model.summands[step.summand] if step.summand is not None else None
        process, pid, where, statement = "", None, "", ""
        if summand is not None:
            process = " & ".join(summand.owners)
            pid = pids.get(summand.owners[0]) if len(summand.owners) == 1 else None
            places, texts = [], []
            for loc in summand.origin.locations:
                if loc.file and loc.line:
                    places.append(f"{Path(loc.file).name}:{loc.line}")
                    lines = _source_lines(loc.file, sources)
                    if 0 < loc.line <= len(lines):
                        texts.append(_excerpt(lines[loc.line - 1], loc.column))
                elif loc.text:
                    places.append(loc.text)
            where = summand.origin.joiner.join(places)
            statement = " | ".join(dict.fromkeys(t for t in texts if t))
        changes = tuple(literal_label(slot, new) for slot, old, new in zip(slots, before.state, step.state)
                        if old != new)
        event = (step.event or "").split(": ", 1)[0] if step.fault else (step.event or "")
        moves.append(Move(event, process, pid, where, statement, changes, step.fault))
    return tuple(moves)


def show_state(model: SequentialModel, state: Sequence[int]) -> str:
    return ", ".join(literal_label(s, v) for s, v in zip(state_slots(model), state))


def show_moves(model: SequentialModel, trace: Sequence[TraceStep], loop_from: Optional[int] = None,
               indent: str = "    ") -> list[str]:
    """Lines showing ``trace``: the initial state, then one line per move (who, where, what)
    and the variables it changed; the start of a lasso's cycle is marked."""
    if not trace:
        return []
    lines = [f"{indent}initial state: {show_state(model, trace[0].state)}"]
    if loop_from == 0:
        lines.append(f"{indent}<<<<< the cycle starts here >>>>>")
    for k, move in enumerate(describe(model, trace), start=1):
        who = move.process or move.event
        if move.pid is not None:
            who += f" (pid {move.pid})"
        head = f"{indent}{k:>3}. {who}"
        if move.where:
            head += f"  {move.where}"
        if move.statement:
            head += f"  {move.statement}"
        # Promela and Murphi make event names up (``user.3``); CSP# events are the behaviour.
        if move.process and move.event and model.observable_events and move.event not in move.statement:
            head += f"  [{move.event}]"
        lines.append(head)
        if move.fault:
            lines.append(f"{indent}       fails: {move.fault}")
        elif move.changes:
            lines.append(f"{indent}       {', '.join(move.changes)}")
        else:
            lines.append(f"{indent}       (no variable changes)")
        if loop_from == k:
            lines.append(f"{indent}<<<<< the cycle starts here >>>>>")
    if loop_from is not None:
        lines.append(f"{indent}(back to the state after step {loop_from}: the cycle repeats)")
    return lines


def moves_json(model: SequentialModel, trace: Sequence[TraceStep]) -> list[dict]:
    """The steps of ``trace`` for JSON: what ``Move`` says, plus the summand and binding that
    ``replay`` takes again and the full state after the step."""
    slots = state_slots(model)
    out = [{"step": 0, "state": {slot.label: slot.show_value(v) for slot, v in zip(slots, trace[0].state)},
            "values": list(trace[0].state)}] if trace else []
    for k, (step, move) in enumerate(zip(trace[1:], describe(model, trace)), start=1):
        out.append({"step": k, "summand": step.summand, "binding": list(step.binding), "event": move.event,
                    "process": move.process, "pid": move.pid, "where": move.where, "statement": move.statement,
                    "changes": list(move.changes), "fault": move.fault,
                    "state": {slot.label: slot.show_value(v) for slot, v in zip(slots, step.state)},
                    "values": list(step.state)})
    return out


# ------------------------------------------------------------------------------------ trails


@dataclass(frozen=True)
class Trail:
    """A counterexample written by ``explore --trail``: the model and the parameters it was
    explored with, what was violated, and the steps (``moves_json``); ``loop_from`` marks a
    lasso's cycle; ``ltl`` is the Promela property the model was loaded with (the ``ltl``
    block's name, or ``claim.NON_PROGRESS``), None for none."""

    model: str
    defines: dict
    violation: str
    kind: str
    steps: list
    loop_from: Optional[int] = None
    ltl: Optional[str] = None

    def to_json(self) -> str:
        return json.dumps({"format": TRAIL_FORMAT, "model": self.model, "defines": self.defines,
                           "violation": self.violation, "kind": self.kind, "loop_from": self.loop_from,
                           **({"ltl": self.ltl} if self.ltl is not None else {}),
                           "steps": self.steps}, indent=2) + "\n"


class TrailError(ValueError):
    """A trail that cannot be read, or that the model cannot follow (the message says where)."""


def read_trail(path: str) -> Trail:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise TrailError(f"{path}: cannot read the trail ({e})") from None
    except json.JSONDecodeError as e:
        raise TrailError(f"{path}:{e.lineno}:{e.colno}: not a trail (invalid JSON: {e.msg})") from None
    if not isinstance(data, dict) or data.get("format") != TRAIL_FORMAT:
        raise TrailError(f"{path}: not a symdetect trail (expected \"format\": \"{TRAIL_FORMAT}\")")
    try:
        steps = data["steps"]
        if not steps or any(not isinstance(s.get("values"), list) for s in steps):
            raise KeyError("values")
        return Trail(str(data["model"]), dict(data.get("defines") or {}), str(data["violation"]),
                     str(data["kind"]), steps, data.get("loop_from"),
                     None if data.get("ltl") is None else str(data["ltl"]))
    except (KeyError, TypeError, AttributeError) as e:
        raise TrailError(f"{path}: not a symdetect trail (missing {e})") from None


def _ltl_pseudo_step(model: SequentialModel, compiled: CompiledModel, current: tuple, entry: dict) -> bool:
    """Whether ``entry`` is a step of a CSP# LTL counterexample that no summand takes
    (``detect.checking.temporal``): PAT's ``terminate`` from a terminated state, or the
    stutter of a state without steps; neither changes the state."""
    from detect.checking.temporal import STUTTER_STEP, TERMINATE_EVENT
    from detect.ir.semantics import is_terminal

    if tuple(entry.get("values") or ()) != tuple(current):
        return False
    if entry.get("event") == TERMINATE_EVENT:
        return is_terminal(model, current)
    return entry.get("event") == STUTTER_STEP and not any(True for _ in compiled.steps(current))


@dataclass(frozen=True)
class Replay:
    """What replaying a trail found: the real trace it followed and whether the violation the
    trail records recurred at its end (``recurred``), with ``why`` in words."""

    trace: tuple[TraceStep, ...]
    recurred: bool
    why: str


def replay(model: SequentialModel, trail: Trail, compiled: Optional[CompiledModel] = None) -> Replay:
    """Take ``trail``'s steps on ``model`` one by one: each must be enabled (same summand and
    binding) and lead to the recorded state; raises ``TrailError`` naming the first that does
    not.  Then checks that the violation recurs: the last step faults (a fault), the last
    state has no step and is not a valid end state (a deadlock), or the lasso closes (a
    cycle); an assertion's condition is judged by the explorer, so its trail only has to
    replay."""
    compiled = compiled or compile_model(model)
    first = tuple(trail.steps[0]["values"])
    width = len(state_slots(model))
    if len(first) != width:
        raise TrailError(f"the trail's states have {len(first)} values, the model's {width}: "
                         f"is it the same model and -D values?")
    if first not in set(compiled.initial_states()):
        raise TrailError("the trail's first state is not an initial state of the model")
    trace = [TraceStep(None, first)]
    for entry in trail.steps[1:]:
        current = trace[-1].state
        want = (entry.get("summand"), tuple(entry.get("binding") or ()))
        taken = None
        for step in compiled.steps(current):
            if (step.summand, tuple(step.binding)) == want:
                taken = step
                break
        label = f"step {entry.get('step')} ({entry.get('process') or entry.get('event')} {entry.get('where', '')})"
        if taken is None and entry.get("summand") is None and _ltl_pseudo_step(model, compiled, current, entry):
            trace.append(TraceStep(entry.get("event"), current))
            continue
        if taken is None:
            raise TrailError(f"{label.strip()} is not enabled in the state the trail reached")
        if entry.get("fault"):
            if taken.target is not None:
                raise TrailError(f"{label.strip()} does not fail as the trail says ({entry['fault']})")
            trace.append(TraceStep(f"{taken.event}: {taken.fault}", current, taken.summand, tuple(taken.binding),
                                   taken.fault or "fault"))
            break
        if taken.target is None or taken.target != tuple(entry["values"]):
            raise TrailError(f"{label.strip()} leads elsewhere than the trail's state")
        trace.append(TraceStep(taken.event, taken.target, taken.summand, tuple(taken.binding)))
    last = trace[-1]
    if trail.kind == "fault":
        ok = last.fault is not None
        why = f"the last step fails: {last.fault}" if ok else "the last step does not fail"
    elif trail.kind == "deadlock":
        from detect.ir.semantics import is_terminal

        stuck = not any(True for _ in compiled.steps(last.state))
        ok = stuck and not is_terminal(model, last.state)
        why = "the last state has no step and is not a valid end state" if ok else "the last state is not a deadlock"
    elif trail.kind == "cycle":
        k = trail.loop_from
        ok = k is not None and 0 <= k < len(trace) - 1 and trace[k].state == last.state
        why = (f"the steps after step {k} return to its state: the cycle repeats" if ok
               else "the trail's cycle does not close")
    else:
        ok, why = True, f"every step replayed ({trail.violation})"
    return Replay(tuple(trace), ok, why)
