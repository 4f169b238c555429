"""A random Promela model generator for differential testing against Spin.

``model(seed)`` is a small, closed Promela model: 2-3 proctypes (``active [N]`` or started
by ``run`` from ``init``), byte/short/int/bool globals and small byte arrays, buffered and
rendezvous channels, guards, ``if``/``do`` with ``else``, ``break`` and ``timeout``,
``atomic`` (also around a whole ``do``) and ``d_step`` blocks, forward ``goto`` (also to
``end`` labels), ``assert``, ``_pid``, ``_nr_pr``, an ``mtype``, C's arithmetic and bit
operators, and stores that wrap (byte + 200, short + 30000, int + 65537).  Loops are bounded by local counters
and values stay small, so state spaces stay in the hundreds to thousands.  ``claimed(seed)``
is the same model with a random never claim over its globals (``do``/``if`` with ``else``,
``goto``, an ``accept`` label, an end that is a violation).  ``routed(seed)`` adds channels of
channels: a hub channel carrying channel values, a process with a local channel, and
operations on ``chan`` variables that may name buffered and rendezvous channels alike.
``spawning(seed)`` gives processes channels through ``run`` (``run P(c)`` with local
channels and channels chosen at run time); ``iterating(seed)`` adds Spin 6's ``for`` and
``select``.
"""
from __future__ import annotations

import random

BYTES = ["g0", "g1"]
WIDE = {"s0": "short", "i0": "int"}
BOOLS = ["b0"]
MTYPES = ["red", "green"]


class _Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.depth = 0
        self.counters = 0
        self.chans: dict[str, int] = {}  # name -> capacity
        self.arr = self.r.choice([2, 3])
        self.in_dstep = False
        self.in_loop = 0
        self.in_claim = False  # no _pid, no locals

    # ---------------------------------------------------------------- expressions
    def var(self, locals_: list[str]) -> str:
        r = self.r.random()
        if r < 0.45:
            return self.r.choice(BYTES)
        if r < 0.6:
            return self.r.choice(list(WIDE))
        if r < 0.7:
            return self.r.choice(BOOLS)
        if r < 0.85 and locals_:
            return self.r.choice(locals_)
        return f"a[{self.index()}]"

    def index(self) -> str:
        if self.in_claim:
            return self.r.choice([str(self.r.randrange(self.arr)), f"g0 % {self.arr}"])
        return self.r.choice([str(self.r.randrange(self.arr)), f"_pid % {self.arr}", f"g0 % {self.arr}"])

    def const(self) -> str:
        return str(self.r.choice([0, 1, 1, 2, 2, 3]))

    def expr(self, locals_: list[str]) -> str:
        k = self.r.randrange(12)
        if k == 9:
            return f"{self.var(locals_)} {self.r.choice(['/', '%'])} {self.r.choice([2, 3])}"
        if k == 10:
            v = self.var(locals_)
            return self.r.choice([f"({v} & 3)", f"({v} | 1)", f"({v} ^ 2)", f"({v} << 1)", f"({v} >> 1)", f"~{v}",
                                  f"!{v}"])
        if k == 11:
            return "_nr_pr" if not self.chans or self.r.random() < 0.5 else f"len({self.r.choice(list(self.chans))})"
        if k == 0:
            return self.const()
        if k == 1:
            return "_pid"
        if k == 2:
            return f"({self.var(locals_)} + {self.const()}) % 3"
        if k == 3:
            return f"{self.var(locals_)} + {self.const()}"
        if k == 4:
            return f"{self.var(locals_)} - 1"
        if k == 5:
            return f"{self.var(locals_)} * 2"
        if k == 6:
            return f"({self.var(locals_)} > {self.const()} -> 1 : 2)"
        return self.var(locals_)

    def cond(self, locals_: list[str]) -> str:
        k = self.r.randrange(8)
        v = self.var(locals_)
        if k == 0:
            return f"{v} < {self.const()}"
        if k == 1:
            return f"{v} == {self.const()}"
        if k == 2:
            return f"{v} != {self.var(locals_)}"
        if k == 3:
            return f"({v} > 0 && {self.var(locals_)} < 2)"
        if k == 4:
            return f"({v} == 1 || {self.var(locals_)} == 0)"
        if k == 5 and self.chans and not self.in_dstep:
            ch = self.r.choice(list(self.chans))
            return self.r.choice([f"nempty({ch})", f"len({ch}) < 1", f"empty({ch})", f"nfull({ch})"])
        if k == 6:
            return self.r.choice(BOOLS) if self.r.random() < 0.5 else f"!{self.r.choice(BOOLS)}"
        if k == 7 and self.r.random() < 0.5:
            return f"m0 {self.r.choice(['==', '!='])} {self.r.choice(MTYPES)}"
        return f"{v} >= {self.const()}"

    # ---------------------------------------------------------------- statements
    def assign(self, locals_: list[str]) -> str:
        r = self.r.random()
        if r < 0.15:  # wrap-around stores
            return self.r.choice(["g0 = g0 + 200", "g1 = g1 - 3", "s0 = s0 + 30000", "i0 = i0 + 65537",
                                  "i0 = i0 - 40000", "b0 = g0 + 1", "g1 = i0", "s0 = i0 * 2"])
        if r < 0.2:
            return f"m0 = {self.r.choice(MTYPES)}"
        target = self.var(locals_)
        if r < 0.25:
            return f"{target}++" if self.r.random() < 0.5 else f"{target}--"
        return f"{target} = {self.expr(locals_)}"

    def basic(self, locals_: list[str]) -> str:
        k = self.r.randrange(10)
        if k <= 3:
            return self.assign(locals_)
        if k <= 5:
            return self.cond(locals_)
        if k == 6:
            return f"assert({self.cond(locals_)})"
        if k == 7 and self.chans and not self.in_dstep:
            ch = self.r.choice(list(self.chans))
            if self.r.random() < 0.5:
                return f"{ch}!{self.expr(locals_)}"
            target = self.r.choice(BYTES + locals_) if self.r.random() < 0.8 else self.const()
            return f"{ch}?{target}"
        if k == 8:
            return "skip"
        return self.assign(locals_)

    def seq(self, locals_: list[str], n: int) -> str:
        return "; ".join(self.stmt(locals_) for _ in range(n))

    def stmt(self, locals_: list[str]) -> str:
        if self.depth >= 2 or self.r.random() < 0.55:
            return self.basic(locals_)
        self.depth += 1
        try:
            k = self.r.randrange(6)
            if k == 0:
                return self.if_(locals_)
            if k == 1 and not self.in_dstep:
                return self.do(locals_)
            if k == 2 and not self.in_dstep:
                inner = self.do(locals_) if self.r.random() < 0.4 else self.seq(locals_, self.r.randint(1, 3))
                return f"atomic {{ {inner} }}"
            if k == 3 and not self.in_dstep:
                self.in_dstep = True
                first = self.cond(locals_) if self.r.random() < 0.5 else self.assign(locals_)
                rest = [self.assign(locals_) if self.r.random() < 0.7 else self.if_(locals_)
                        for _ in range(self.r.randint(0, 2))]
                self.in_dstep = False
                return "d_step { " + "; ".join([first] + rest) + " }"
            return self.if_(locals_)
        finally:
            self.depth -= 1

    def option(self, locals_: list[str], first: str | None = None) -> str:
        head = first if first is not None else self.cond(locals_)
        if first is None and not self.in_dstep and self.r.random() < 0.05:
            head = "timeout"
        body = [self.stmt(locals_) for _ in range(self.r.randint(0, 2))]
        return ":: " + " -> ".join([head] + (["; ".join(body)] if body else []))

    def if_(self, locals_: list[str]) -> str:
        options = [self.option(locals_) for _ in range(self.r.randint(1, 3))]
        if self.r.random() < 0.5:
            options.append(self.option(locals_, "else"))
        return "if " + " ".join(options) + " fi"

    def do(self, locals_: list[str]) -> str:
        self.counters += 1
        c = f"c{self.counters}"  # declared by the proctype; only this loop reads or writes it
        self.in_loop += 1
        body = [f":: {c} < {self.r.randint(1, 3)} -> {self.seq(locals_, self.r.randint(1, 2))}; {c}++"]
        if self.r.random() < 0.4:
            body.append(f":: {self.cond(locals_)} -> break")
        self.in_loop -= 1
        body.append(":: else -> break" if self.r.random() < 0.6 else f":: {c} >= 1 -> break")
        self.r.shuffle(body)
        return "do " + " ".join(body) + " od"

    # ---------------------------------------------------------------- model
    def model(self) -> str:
        r = self.r
        lines = [f"mtype = {{ {', '.join(MTYPES)} }};", "byte g0, g1; short s0; int i0; bool b0; mtype m0;",
                 f"byte a[{self.arr}];"]
        for k in range(r.choice([0, 1, 1, 2])):
            cap = r.choice([0, 1, 2])
            name = f"q{k}"
            self.chans[name] = cap
            lines.append(f"chan {name} = [{cap}] of {{ byte }};")
        procs = r.randint(2, 3)
        runs = []
        pairs = 0  # at most one active [2], and only beside one other proctype
        for p in range(procs):
            locals_: list[str] = ["l0"]
            self.counters = 0
            stmts = [self.stmt(locals_) for _ in range(r.randint(2, 3))]
            targets = [j for j in range(1, len(stmts)) if not stmts[j].startswith("d_step")]
            if targets and r.random() < 0.3:  # a forward goto, to a label that may mark a valid end state
                label = r.choice(["L1", "end1"])
                j = r.choice(targets)  # Spin refuses a jump into a d_step
                i = r.randrange(j)
                stmts[j] = f"{label}: {stmts[j]}"
                stmts[i] = f"if :: {self.cond(locals_)} -> goto {label} :: else -> {stmts[i]} fi"
            body = "; ".join(stmts)
            counters = [f"c{k}" for k in range(1, self.counters + 1)]
            decl = "byte " + ", ".join(["l0"] + counters) + "; "
            if r.random() < 0.3:
                lines.append(f"proctype P{p}(byte k) {{ {decl}l0 = k; {body} }}")
                runs.append(f"run P{p}({r.randint(0, 2)})")
            else:
                n = 2 if pairs == 0 and procs == 2 and r.random() < 0.4 else 1
                pairs += n == 2
                lines.append(f"active [{n}] proctype P{p}() {{ {decl}{body} }}")
        if runs:
            # atomic: a process ending before a later run would make Spin reuse its pid,
            # which we refuse (a run-time fault; see README)
            lines.append(f"init {{ atomic {{ {'; '.join(runs)} }} }}")
        return "\n".join(lines) + "\n"


    def claim(self) -> str:
        """A never claim of two or three states over the globals: each state loops or moves
        on; reaching the last one's end is a violation."""
        self.in_claim = True
        r = self.r
        states = r.randint(2, 3)
        labels = ["accept_s" if r.random() < 0.3 else "S0"] + [f"S{k}" for k in range(1, states)] + [f"E{states}"]
        parts = []
        for k in range(states):
            options = [f":: {self.cond([])} -> goto {labels[k + 1]}"]
            if r.random() < 0.5:
                options.append(f":: {self.cond([])} -> goto {labels[0]}")
            options.append(r.choice([":: else", ":: true", f":: {self.cond([])}"]))
            parts.append(f"{labels[k]}: do {' '.join(options)} od")
        parts.append(f"E{states}: {self.cond([])}")
        self.in_claim = False
        return "never { " + "; ".join(parts) + " }\n"


def model(seed: int) -> str:
    """The random model number ``seed``."""
    return _Gen(seed).model()


def routed(seed: int) -> str:
    """The random model number ``seed`` with channel values passed through a hub channel."""
    gen = _Gen(seed)
    text = gen.model()
    r = random.Random(seed + 7919)
    names = list(gen.chans) or []
    if not names:
        text += "chan q9 = [1] of { byte };\n"
        names = ["q9"]
    lines = ["chan hub = [2] of { chan, byte };"]

    def op(c: str) -> str:
        return r.choice([f"{c}!{r.randint(0, 2)}", f"{c}?g0", f"nempty({c}) -> {c}?_", f"nfull({c}) -> {c}!g1",
                         f"{c}?[1] -> {c}?1", f"len({c}) == 0"])

    own = "mine" if r.random() < 0.5 else r.choice(names)
    lines.append(f"active proctype R() {{ chan c; chan mine = [{r.choice([0, 1, 2])}] of {{ byte }}; byte v; "
                 f"hub!{own},1; hub!{r.choice(names)},2; "
                 f"do :: hub?c,v -> if :: {op('c')} :: {op('c')} :: else fi; v < 2 -> hub!c,v+1 "
                 f":: timeout -> break od; "
                 f"if :: mine?v :: mine!1 :: skip fi }}")
    return text + "\n".join(lines) + "\n"


def spawning(seed: int) -> str:
    """A random model where processes are given channels by ``run``: a worker proctype with
    ``chan`` parameters and a local channel, run (also recursively, by workers) with a
    global channel, a channel chosen at run time (``pool[i]``), the runner's own local
    channel or a channel received as a value; workers end, so pids and channel numbers are
    reused.  At most 7 processes run at once (within ``--max-procs``' default)."""
    r = random.Random(seed)
    cap = lambda: r.choice([0, 1, 1, 2])  # noqa: E731
    lines = ["byte g0;", f"chan pool[2] = [{cap()}] of {{ byte }};", f"chan hub = [2] of {{ chan }};"]

    def op(c: str) -> str:
        return r.choice([f"{c}!k", f"{c}?v", f"{c}?v; g0 = v", f"nempty({c}) -> {c}?_", f"nfull({c}) -> {c}!1",
                         f"if :: {c}!g0 :: {c}?v :: timeout fi", f"{c}?[1] -> {c}?1", f"len({c}) == 0",
                         "hub!mine", "hub?o; o!k", "hub?o; o?v"])

    def body(inp: str, out: str) -> str:
        ops = [op(r.choice([inp, out, "mine"])) for _ in range(r.randint(2, 4))]
        if r.random() < 0.6:  # recursion, bounded by k
            arg = r.choice(["mine", inp, "pool[k % 2]", "o"])
            ops.insert(r.randrange(len(ops) + 1), f"if :: k > 0 -> run Wk(mine, {arg}, k - 1) :: else fi")
        if r.random() < 0.3:
            ops.append("end: " + op("mine"))
        return "; ".join(ops)

    lines.append(f"proctype Wk(chan inp, out; byte k) {{ chan mine = [{cap()}] of {{ byte }}; chan o; byte v; "
                 f"{body('inp', 'out')} }}")
    first = r.choice(["pool[i]", "pool[0]", "own"])
    second = r.choice(["own", "pool[1 - i]", "hub"]) if first != "own" else r.choice(["pool[i]", "pool[0]"])
    if second == "hub":  # a channel of the wrong arity is refused by Spin: keep to byte channels
        second = "own"
    steps = [f"run Wk({first}, {second}, {r.randint(0, 2)})"]
    if r.random() < 0.5:
        steps.append(f"run Wk({r.choice(['own', 'pool[i]', 'pool[1]'])}, {r.choice(['own', 'pool[0]'])}, "
                     f"{r.randint(0, 1)})")
    steps += [r.choice(["own?v", "own!1", "pool[i]!2", "pool[i]?v", "hub?o; o!3", "skip"])
              for _ in range(r.randint(1, 2))]
    lines.append(f"init {{ chan own = [{cap()}] of {{ byte }}; chan o; byte i, v; "
                 f"if :: i = 0 :: i = 1 fi; {'; '.join(steps)} }}")
    return "\n".join(lines) + "\n"


def iterating(seed: int) -> str:
    """The random model number ``seed`` with a process using Spin 6's ``for (i : lo .. hi)``,
    ``for (i in a)`` and ``select (i : lo .. hi)`` (literal bounds, small and wide, and
    bounds read from variables), with ``break`` inside a ``for`` body."""
    gen = _Gen(seed)
    text = gen.model()
    r = random.Random(seed + 104729)
    locals_ = ["l0"]
    parts = []
    for _ in range(r.randint(2, 3)):
        k = r.randrange(5)
        if k == 0:
            parts.append(f"select (j : {r.randint(0, 2)} .. {r.randint(2, 4)})")
        elif k == 1:
            parts.append(f"select (j : 1 .. {r.choice(['g1 % 3 + 1', '40', '3'])})")
        elif k == 2:
            body = gen.seq(locals_, r.randint(1, 2))
            if r.random() < 0.4:
                body += f"; if :: {gen.cond(locals_)} -> break :: else fi"
            parts.append(f"for (j : {r.randint(0, 1)} .. {r.choice(['2', 'g0 % 3'])}) {{ {body} }}")
        elif k == 3:
            parts.append(f"for (j in a) {{ a[j] = a[j] + j; {gen.basic(locals_)} }}")
        else:
            parts.append(f"l0 = j; {gen.basic(locals_)}")
    counters = "".join(f", c{k}" for k in range(1, gen.counters + 1))
    return text + f"active proctype It() {{ byte j, l0{counters}; {'; '.join(parts)} }}\n"


def claimed(seed: int) -> str:
    """The random model number ``seed`` with a random never claim."""
    gen = _Gen(seed)
    return gen.model() + gen.claim()


if __name__ == "__main__":  # print a few
    import sys

    for s in map(int, sys.argv[1:] or ["0", "1", "2"]):
        print(f"// seed {s}\n{model(s)}")
