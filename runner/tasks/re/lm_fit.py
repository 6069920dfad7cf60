"""How well an argument fits its slot, judged by a causal LM (MR-R1's replacements).

For a text and the argument at ``[start, end)``, the fit is

    log p(argument | the words before it) − log p(argument alone)
      + log p(the words after it | the words before, the argument)

— the first two terms say how much more the sentence expects this name than a name's own
frequency would ("Her husband, ___" expects a man's name), the third whether what follows agrees
with it ("___ and her children": a woman; "studied at ___ in Boston": a school). A replacement is
judged against the original in the same sentence: ``drop`` = fit(original) − fit(replacement),
in nats; a large drop means the LM finds the replacement a poor fit where the original was read.
The sentence is read from twelve words before the argument to eight after it (:func:`window`).
All texts go to the model in batched passes (:mod:`runner.models.lm`).
"""
from __future__ import annotations

import re
import weakref
from typing import Any, Sequence

LEFT_WORDS = 12
RIGHT_WORDS = 8
_WORD = re.compile(r"\S+")
_ALONE: "weakref.WeakKeyDictionary[Any, dict[str, float]]" = weakref.WeakKeyDictionary()
# model → name → Σ log p of the name alone


def _token_log_probs(lm: Any, rows: Sequence[Sequence[int]]) -> list[list[float]]:
    """Per row (start symbol first), log p of each of its tokens after the first."""
    import torch

    out: dict[int, list[float]] = {}

    def run(chunk: list[int]) -> list[list[float]]:
        ids, att, states, project = lm._pass([rows[j] for j in chunk])
        with torch.inference_mode():
            lp = lm._gold_log_probs(states[:, :-1], project, ids[:, 1:], att[:, 1:].bool())
        return [lp[n, :len(rows[j]) - 1].tolist() for n, j in enumerate(chunk)]

    for chunk, got in lm._map(run, [list(r) for r in rows]):
        out.update(zip(chunk, got))
    return [out[j] for j in range(len(rows))]


def window(text: str, start: int, end: int, left_words: int = LEFT_WORDS,
           right_words: int = RIGHT_WORDS) -> tuple[str, int, int]:
    """The argument with at most ``left_words`` words before it and ``right_words`` after it
    (what the fit reads: a name's fit is decided near it, and short rows make cheap passes)."""
    before = [m.start() for m in _WORD.finditer(text, 0, start)]
    a = before[-left_words] if left_words and len(before) >= left_words else (
        0 if left_words else start)
    after = [m.end() for m in _WORD.finditer(text, end)]
    b = after[right_words - 1] if right_words and len(after) >= right_words else (
        len(text) if right_words else end)
    return text[a:b], start - a, end - a


def context_fit(lm: Any, items: Sequence[tuple[str, int, int]]) -> list[float]:
    """The fit of each ``(text, start, end)`` argument (see the module's documentation), read
    in its :func:`window`."""
    if not items:
        return []
    windows = [window(*it) for it in items]
    uniq = list(dict.fromkeys(windows))         # an argument asked for twice is read once
    enc = lm.tokenizer([t for t, _, _ in uniq], add_special_tokens=False,
                       return_offsets_mapping=True, truncation=True,
                       max_length=lm.max_length - 1)
    # a name's own log-probability does not depend on the sentence: each is scored once per
    # model (the pool's names recur across sources), in the same passes as the sentences
    cache = _ALONE.setdefault(lm, {})
    if len(cache) > 100_000:
        cache.clear()
    names = list(dict.fromkeys(t[s:e] for t, s, e in uniq if t[s:e] not in cache))
    rows = [[lm.start_id] + list(ids) for ids in enc["input_ids"]]
    rows += [[lm.start_id] + list(ids) for ids in lm._ids_many(names)]
    lps = _token_log_probs(lm, rows)
    for name, lp in zip(names, lps[len(uniq):]):
        cache[name] = sum(lp)
    fit = {}
    for (text, start, end), offsets, lp_row in zip(uniq, enc["offset_mapping"], lps):
        inside = after = 0.0
        for lp, (a, b) in zip(lp_row, offsets):
            if a < end and b > start:
                inside += lp
            elif a >= end:
                after += lp
        fit[(text, start, end)] = inside - cache[text[start:end]] + after
    return [fit[w] for w in windows]


def fit_drops(lm: Any, text: str, start: int, end: int,
              replaced: Sequence[str]) -> list[float]:
    """For each replacement text of the argument at ``[start, end)`` of ``text``: fit of the
    original − fit of the replacement in the same sentence (nats; ≤ 0: it fits as well)."""
    items = [(text, start, end)]
    items += [(text[:start] + r + text[end:], start, start + len(r)) for r in replaced]
    fits = context_fit(lm, items)
    return [fits[0] - f for f in fits[1:]]
