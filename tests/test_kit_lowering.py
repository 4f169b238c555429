"""``frontends.kit.lowering``: the lowered channel, hand-off, pc and owner constructs behave
as their invariants say, run in the reference semantics."""
from __future__ import annotations

from detect.ir import Assign, Binary, Const, Name, SequentialModel, Variable
from detect.ir.semantics import Env, evaluate, execute
from frontends.kit.lowering import ExclusiveOwner, FifoBuffer, ProgramCounter, simultaneous

FIFO = FifoBuffer(("c.f0", "c.f1"), "c.len", 3, vacant=-1)


def _env(variables, temporaries=()) -> Env:
    model = SequentialModel("m", tuple(variables), ())
    offsets, state = {}, []
    for v in model.variables:
        offsets[v.name] = len(state)
        state += [allowed[0] for allowed in v.init]
    return Env(model, offsets, state, dict.fromkeys(temporaries, 0))


def _fifo_env() -> Env:
    domain = tuple(range(-1, 10))
    return _env([FIFO.length_variable(), FIFO.field_variable(0, domain), FIFO.field_variable(1, domain)])


def _holds(e, env) -> bool:
    return bool(evaluate(e, env))


def _receive(env, **order):
    message = tuple(evaluate(FIFO.head(k), env) for k in range(2))
    execute(FIFO.dequeue(**order), env)
    return message


def test_fifo_delivers_in_order_and_blocks_when_full_or_empty():
    for order in ({}, {"length_first": True}):
        env = _fifo_env()
        assert not _holds(FIFO.not_empty(), env)
        for m in ((1, 2), (3, 4), (5, 6)):
            assert _holds(FIFO.not_full(), env)
            execute(FIFO.enqueue([Const(v) for v in m]), env)
        assert not _holds(FIFO.not_full(), env)
        assert _receive(env, **order) == (1, 2)
        execute(FIFO.enqueue([Const(7), Const(8)]), env)
        assert [_receive(env, **order) for _ in range(3)] == [(3, 4), (5, 6), (7, 8)]
        assert not _holds(FIFO.not_empty(), env)
        # Vacated slots return to the placeholder: the empty buffer is the initial state.
        assert env.state == _fifo_env().state


def test_named_buffer():
    assert FifoBuffer.named("c", 2, 3, length="len", field="f") == FifoBuffer(("c.f0", "c.f1"), "c.len", 3, 0)


def test_dequeue_order_is_the_only_difference():
    shifts_then_length, length_then_shifts = FIFO.dequeue(), FIFO.dequeue(length_first=True)
    assert shifts_then_length[-1] == length_then_shifts[0]
    assert shifts_then_length[:-1] == length_then_shifts[1:]


def test_simultaneous_reads_every_value_before_writing():
    x, y = Name("x"), Name("y")
    swap = simultaneous([(x, y), (y, x)], lambda k: f"_t{k}")
    env = _env([Variable("x", (1, 2), ((1,),)), Variable("y", (1, 2), ((2,),))])
    execute(swap, env)
    assert env.state == [2, 1]
    # One assignment needs no temporary.
    assert simultaneous([(x, Binary("+", x, Const(1)))], lambda k: f"_t{k}") == (
        Assign(x, Binary("+", x, Const(1))),)


def test_program_counter_and_exclusive_owner():
    pc = ProgramCounter(Name("pc"))
    owner = ExclusiveOwner("owner", -1)
    env = _env([Variable("pc", (0, 1, 2), ((0,),)), owner.variable([3, 4])])
    assert _holds(pc.at(0), env) and not _holds(pc.at(2), env)
    execute((pc.goto(2), owner.take(Const(3))), env)
    assert _holds(pc.at(2), env)
    assert _holds(owner.turn([Const(3)]), env)
    assert not _holds(owner.turn([Const(4)]), env)
    assert _holds(owner.turn([Const(4)], [Const(1)]), env)
    execute((owner.release(),), env)
    assert _holds(owner.turn([Const(4)]), env)
