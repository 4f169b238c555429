"""What every front end's tests check of bad and random input: a located ``InputError``
(never a traceback), or a model the IR accepts."""
from __future__ import annotations

from typing import Callable, Union

import pytest

from detect import ir
from detect.errors import InputError

Parse = Callable[[str, str], ir.SequentialModel]


def assert_located_error(parse_text: Parse, text: str, path: str, line: int, column: int, fragment: str) -> None:
    """Parsing ``text`` as ``path`` raises an ``InputError`` at ``line``:``column`` whose message
    contains ``fragment``, printed ``path:line:column: message``."""
    with pytest.raises(InputError) as info:
        parse_text(text, path)
    err = info.value
    assert (err.path, err.line, err.column) == (path, line, column), str(err)
    assert fragment in err.message
    assert str(err).startswith(f"{path}:{line}:{column}: ")


def model_or_input_error(parse_text: Parse, text: str, path: str) -> Union[ir.SequentialModel, InputError]:
    """``text`` parsed as ``path``: the model, which must validate, or the ``InputError`` it
    raises, which must name ``path``."""
    try:
        model = parse_text(text, path)
    except InputError as e:
        assert e.path == path, str(e)
        return e
    ir.validate(model)
    return model
