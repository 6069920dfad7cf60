"""Three mends that make xrenner 2.2.1.1 answer each document as if it were its first.

1. **State between documents.** xrenner keeps one lexicon object for every document it is given,
   and three of its tables change while it reads one: it *learns* possessor/possessed pairs from
   the document into ``hasa`` ("1 for attestation, 1 for pertinence in this document", its
   source says), it records the last markable of each agreement class in ``last``, and reading a
   missing key of the ``defaultdict`` tables ``hasa``, ``entity_deps`` and ``freqs`` inserts it
   (an empty entry that later ``in`` tests see: ``entity_deps[sim][func]`` present and empty stops
   xrenner from looking at the next similar head). Its own code empties two other per-document
   caches at the start of ``analyze`` but not these. So its answer for a text depended on the
   texts read before it: on the GAP and GUM passages 0–4 in 250 changed when the same passages
   were read in another order — a changed answer a metamorphic test would take for the edit's
   effect. :class:`Isolation` makes those tables journal their writes, and :meth:`Isolation.reset`
   undoes them (and empties ``last``) after each document.
2. **An emptied chain.** ``postprocess_coref`` splices markables out of their chains and then,
   with ``force_single_type_chains`` on (the English model's setting), takes ``max()`` over each
   chain's entity types; a chain spliced empty makes that ``max()`` raise ``ValueError: max() arg
   is an empty sequence`` and xrenner answers nothing (30 % of GAP's Wikipedia passages, 1–10 %
   of GUM's). An empty chain has no markable to retype, so the loop has nothing to do: the
   module's ``max`` is given ``default=None`` for that one call (the module calls ``max`` nowhere
   else), and xrenner's answer is otherwise unchanged.

3. **Ties broken by memory address.** xrenner gathers antecedent candidates in sets of
   ``Markable`` objects, which hash by identity, and a tie (or the last candidate it propagates
   from) then depends on where the objects lie in memory: the same passage read twice in one
   process could get other clusters (1 in 250 GAP passages). :class:`Isolation` gives
   ``Markable`` and ``ParsedToken`` a hash that is the order in which each object was first
   hashed within the document (the count starts again with each document), so the iteration
   order of those sets, and so every tie, is the same on every reading.

All three are reported in the system's ``describe()`` (``mends``), so results.json says which ran.
"""
from __future__ import annotations

import builtins
import itertools
from typing import Any, Callable

MENDS = ("per-document state: hasa, entity_deps, freqs and last restored after each document",
         "empty chain: postprocess_coref's max() over a chain spliced empty returns None",
         "ties: Markable and ParsedToken hash by the order they are first hashed in a document")
TABLES = ("hasa", "entity_deps", "freqs")


class _Journal:
    """Old values of every write to the journaled tables since the last :meth:`undo`."""

    def __init__(self) -> None:
        self.entries: list[tuple[dict, Any, bool, Any]] = []

    def undo(self) -> None:
        for table, key, had, old in reversed(self.entries):
            if had:
                dict.__setitem__(table, key, old)
            else:
                dict.pop(table, key, None)
        self.entries.clear()


class _JournaledDict(dict):
    """A ``defaultdict`` look-alike whose writes (a missing key's insertion included) are
    recorded in a journal, so that they can be undone."""

    __slots__ = ("factory", "journal")

    def __init__(self, factory: Callable[[], Any] | None, journal: _Journal) -> None:
        super().__init__()
        self.factory = factory
        self.journal = journal

    def __missing__(self, key):
        if self.factory is None:
            raise KeyError(key)
        value = self.factory()
        self[key] = value
        return value

    def __setitem__(self, key, value) -> None:
        self.journal.entries.append((self, key, dict.__contains__(self, key), dict.get(self, key)))
        dict.__setitem__(self, key, value)

    def __delitem__(self, key) -> None:
        self.journal.entries.append((self, key, True, dict.__getitem__(self, key)))
        dict.__delitem__(self, key)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return dict.__getitem__(self, key)


def _journaled(value: Any, journal: _Journal) -> Any:
    """``value`` with every (default)dict in it made a :class:`_JournaledDict`; a default
    factory becomes one that journals what it makes too."""
    if not isinstance(value, dict):
        return value
    factory = getattr(value, "default_factory", None)
    out = _JournaledDict(None if factory is None else (lambda: _journaled(factory(), journal)),
                         journal)
    for key, item in value.items():
        dict.__setitem__(out, key, _journaled(item, journal))
    return out


def _max_or_none(*args, **kwargs):
    """``max`` as xrenner's postprocessing calls it, ``None`` for an empty sequence."""
    if len(args) == 1 and "default" not in kwargs:
        kwargs["default"] = None
    return builtins.max(*args, **kwargs)


class _FirstHashed:
    """Hash values in the order objects are first hashed; :meth:`restart` per document."""

    def __init__(self) -> None:
        self.counter = itertools.count()

    def restart(self) -> None:
        self.counter = itertools.count()

    def install(self, *classes: type) -> None:
        counter = self

        def __hash__(obj) -> int:
            try:
                return obj.__dict__["_first_hashed"]
            except KeyError:
                value = obj.__dict__["_first_hashed"] = next(counter.counter)
                return value

        for cls in classes:
            cls.__hash__ = __hash__

    @staticmethod
    def uninstall(*classes: type) -> None:
        for cls in classes:
            if "__hash__" in cls.__dict__:
                delattr(cls, "__hash__")


_FIRST_HASHED = _FirstHashed()


def unmend() -> None:
    """Take the process-wide mends (the module's ``max``, the hashes) off again, so that an
    ``Xrenner`` without :class:`Isolation` runs as shipped (``mends: false``)."""
    try:
        from xrenner.modules import xrenner_classes, xrenner_postprocess
    except ImportError:
        return
    xrenner_postprocess.__dict__.pop("max", None)
    _FirstHashed.uninstall(xrenner_classes.Markable, xrenner_classes.ParsedToken)


class Isolation:
    """Applied once to a loaded ``Xrenner``; :meth:`reset` after every document. The ``max``
    and hash mends are process-wide (xrenner's module and classes), the tables the instance's."""

    def __init__(self, xr: Any) -> None:
        from xrenner.modules import xrenner_classes, xrenner_postprocess

        xrenner_postprocess.max = _max_or_none
        _FIRST_HASHED.install(xrenner_classes.Markable, xrenner_classes.ParsedToken)
        self.lex = xr.lex
        self.journal = _Journal()
        for name in TABLES:
            setattr(self.lex, name, _journaled(getattr(self.lex, name), self.journal))

    def reset(self) -> None:
        self.journal.undo()
        self.lex.last = {}
        _FIRST_HASHED.restart()
