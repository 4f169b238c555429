"""Front ends: parse a concurrent model and linearise it into a ``detect.ir.SequentialModel``."""
