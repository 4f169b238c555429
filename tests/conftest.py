"""Test configuration: hypothesis runs derandomized, so the suite is deterministic."""
from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("deterministic")

import os  # noqa: E402

# The front ends' own path in every test (a monkeypatched front end must run, not a model
# cached by an earlier test); tests/test_model_cache.py turns the cache on where it tests it.
os.environ["SYMDETECT_MODEL_CACHE"] = "off"
