"""Errors about the user's input: always shown as one line, exit code 2, never a traceback."""
from __future__ import annotations


class InputError(Exception):
    """Bad input, located in a file: ``path:line:col: message`` (line/col 1-based, may be 0)."""

    def __init__(self, message: str, path: str = "", line: int = 0, column: int = 0):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line:
            where += f":{self.line}:{self.column or 1}"
        return f"{where}: {self.message}"


class StartStateFault(InputError):
    """A Murphi ``Startstate`` faults (reads an undefined value, assigns out of range, fails
    an ``Assert``): CMurphi reports it as the run's error after storing the ``states``
    distinct start states it made before (its order: the last declared ``Startstate``
    first, each ``Ruleset`` binding with its first parameter varying fastest), and so does
    ``explore`` (exit 1); every other command refuses the model with the located line."""

    def __init__(self, message: str, path: str = "", line: int = 0, column: int = 0, states: int = 0,
                 fault: str = ""):
        super().__init__(message, path, line, column)
        self.states = states
        #: the fault alone (``message`` says which start state)
        self.fault = fault or message
        #: the distinct start states made before the fault, as state tuples (the front end's
        #: layout while running start states), and the model whose initial states they are
        #: (None when there are none): ``explore --reduce`` counts their orbits, as CMurphi's
        #: ``-sym1`` stores them canonicalised before it stops
        self.made: tuple = ()
        self.model = None

