"""Test configuration: hypothesis runs derandomized, so the suite is deterministic."""
from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("deterministic")

import os  # noqa: E402

# The front ends' own path in every test (a monkeypatched front end must run, not a model
# cached by an earlier test); tests/test_model_cache.py turns the cache on where it tests it.
os.environ["SYMDETECT_MODEL_CACHE"] = "off"


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def cmurphi_home():
    """CMurphi 5.4 built from ../shared/peers once per run (``tests/cmurphi.py``); the test
    is skipped with the reason where it cannot be built."""
    from tests import cmurphi

    reason = cmurphi.unavailable()
    if reason:
        pytest.skip(reason)
    return cmurphi.build()
