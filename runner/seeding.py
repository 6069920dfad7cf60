"""Seeded randomness: one generator per case, derived from the run's seed (never global state)."""
from __future__ import annotations

import hashlib
import random


def case_rng(seed: int, *parts: str) -> random.Random:
    """A generator for one (source, transformation), derived from the run's seed. Deriving it per
    case, rather than drawing from one stream, keeps every follow-up identical whatever the batch
    size, max_sources or order of transformations."""
    digest = hashlib.sha256("\x1f".join((str(seed),) + parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
