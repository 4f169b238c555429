"""Expressions that share subtrees (every guard of a Promela model carries the same atomic
turn and ``timeout`` conditions): the cached hash of an operator node, the rewriting that
remembers shared parts (``walk.substituter``), validation that checks each part once, and
substitution by name without hashing every node."""
from __future__ import annotations

import pickle

import pytest

from detect.ir import Binary, Const, Event, Index, Ite, ModelError, Name, Summand, Unary, Variable, walk
from detect.ir.model import SequentialModel, validate


def _deep(n: int):
    e = Name("x")
    for k in range(n):
        e = Binary("+", e, Const(k))
    return e


def test_cached_hash_is_the_structural_hash_and_never_pickled():
    a, b = _deep(50), _deep(50)
    assert a is not b and a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert "_hash" in a.__dict__  # computed once, kept
    back = pickle.loads(pickle.dumps(a))
    assert "_hash" not in back.__dict__ and back == a and hash(back) == hash(a)
    assert Unary("-", a) != Unary("!", a) and Ite(a, Const(1), Const(0)) == Ite(b, Const(1), Const(0))
    assert hash(Index("v", a)) == hash(Index("v", b))


def test_substituter_rewrites_shared_parts_as_substitute_does():
    shared = Binary("&&", Name("timeout"), _deep(30))
    guards = [Binary("||", shared, Name(f"p{k}")) for k in range(20)]
    mapping = {Name("timeout"): Const(0), Name("x"): Index("a", Const(1))}
    rewrite = walk.substituter(mapping)
    out = [rewrite(g) for g in guards]
    assert out == [walk.substitute(g, mapping) for g in guards]
    assert all(o.left is out[0].left for o in out)  # the shared part rewritten once
    assert walk.substitute(Name("y"), {Name("y"): Const(2)}) == Const(2)
    # a key that is no Name still matches a whole subtree
    assert walk.substitute(Binary("+", Name("x"), Const(1)), {Binary("+", Name("x"), Const(1)): Const(5)}) == Const(5)


def _model(guards):
    return SequentialModel("m", (Variable("x", (0, 1), ((0,),)), Variable("a", (0, 1), ((0,), (0,)), size=2)),
                           tuple(Summand((), g, Event("e"), ()) for g in guards))


def test_validation_checks_shared_parts_once_and_still_finds_errors():
    shared = Binary("==", Name("x"), Const(0))
    validate(_model([Binary("&&", shared, Const(k)) for k in range(5)]))
    bad = Binary("==", Name("a"), Const(0))  # an array without an index
    with pytest.raises(ModelError, match="array 'a' used without an index"):
        validate(_model([shared, Binary("&&", shared, bad)]))
