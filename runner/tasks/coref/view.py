"""How a coreference case reads in the report: each document as a flat list of events —
``{"open": k}`` (a mention of cluster ``k`` starts), ``{"text": ..., "changed": bool}``,
``{"close": k}`` — that a template turns into nested, coloured spans (the text is escaped by
the template). Mentions nest ("her brother" ⊃ "her"); crossing ones are closed and reopened.
The follow-up's clusters take the number of the source cluster they share most mentions with,
so one entity has one colour on both sides."""
from __future__ import annotations

from typing import Any, Sequence


def events(text: str, clusters: Sequence[Sequence[Sequence[int]]], numbers: Sequence[int],
           changed: Sequence[Sequence[int]] = ()) -> list[dict[str, Any]]:
    mentions = [(int(m[0]), int(m[1]), numbers[k]) for k, c in enumerate(clusters) for m in c]
    cuts = {0, len(text)}
    for s, e, _ in mentions:
        cuts |= {s, e}
    for s, e in changed:
        cuts |= {int(s), int(e)}
    cuts = sorted(c for c in cuts if 0 <= c <= len(text))
    out: list[dict[str, Any]] = []
    stack: list[tuple[int, int, int]] = []
    for pos in cuts:
        ending = [m for m in stack if m[1] == pos]
        if ending:
            # close down to the deepest mention that ends here, reopening those that go on
            depth = min(stack.index(m) for m in ending)
            reopen = [m for m in stack[depth:] if m[1] != pos]
            for m in reversed(stack[depth:]):
                out.append({"close": m[2]})
            del stack[depth:]
            for m in reopen:
                out.append({"open": m[2]})
                stack.append(m)
        for m in sorted((m for m in mentions if m[0] == pos and m[1] > pos),
                        key=lambda m: -m[1]):
            out.append({"open": m[2]})
            stack.append(m)
        nxt = next((c for c in cuts if c > pos), None)
        if nxt is not None:
            piece = text[pos:nxt]
            hit = any(int(s) <= pos and nxt <= int(e) and s != e for s, e in changed)
            out.append({"text": piece, "changed": hit})
    for m in reversed(stack):
        out.append({"close": m[2]})
    return out


def follow_up_numbers(source_clusters: Sequence[Sequence[Sequence[int]]],
                      follow_up_in_source: Sequence[Sequence[Any]]) -> list[int]:
    """For each follow-up cluster (its mentions in source offsets), the number of the source
    cluster it shares most mentions with; a new number when it shares none."""
    owner = {(int(m[0]), int(m[1])): k for k, c in enumerate(source_clusters) for m in c}
    numbers, used = [], set()
    fresh = len(source_clusters)
    for cluster in follow_up_in_source:
        votes: dict[int, int] = {}
        for m in cluster:
            key = (getattr(m, "start", None), getattr(m, "end", None))
            if key in owner:
                votes[owner[key]] = votes.get(owner[key], 0) + 1
        best = max(votes, key=lambda k: (votes[k], -k)) if votes else None
        if best is None or best in used:
            numbers.append(fresh)
            fresh += 1
        else:
            numbers.append(best)
            used.add(best)
    return numbers
