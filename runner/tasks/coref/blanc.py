"""BLANC (Recasens & Hovy 2011), extended to system mentions (Luo, Pradhan, Recasens & Hovy 2014).

A clustering of mentions defines *coreference links* (every pair of mentions in one cluster) and
*non-coreference links* (every pair of mentions in two different clusters). With C_k, N_k the key's
links and C_r, N_r the response's:

    R_c = |C_k ∩ C_r| / |C_k|   P_c = |C_k ∩ C_r| / |C_r|     (and R_n, P_n from N_k, N_r)
    R = (R_c + R_n) / 2         P = (P_c + P_n) / 2           F = (F_c + F_n) / 2

Links are computed over each side's *own* mentions (Luo et al. 2014): a mention that is only in
the key or only in the response ("twinless") brings links that cannot match, so an extra mention
lowers precision and a missing one lowers recall — no alignment of mention sets is needed.
Singletons count: they take part in non-coreference links (a one-mention cluster has no
coreference link but is linked to every other mention by a non-coreference one).

Corner cases, where a link set is empty:

- ``corner_cases="reference"`` reproduces the reference scorer (conll/reference-coreference-
  scorers, v8.01, which follows Recasens & Hovy 2011): when the key has no coreference link,
  BLANC is the non-coreference part alone (whatever the response), and vice versa; a part with
  no link on either side scores 1, a part with links on one side only scores 0; a key and a
  response that are one and the same single mention score 1 (0 when they differ).
- ``corner_cases="luo"`` follows Luo et al. (2014, §2.3): a part is left out of the average only
  when *both* key and response have no link of that kind; when the response has links of a kind
  the key lacks (or the reverse), that part scores 0 and is averaged in. This is what a
  metamorphic oracle needs: a response that adds a cluster where the key has none must not score
  1. (The two differ e.g. on the reference suite's test case N-6: F_n = 0.154 vs (0 + F_n)/2.)
  With no mention at all on either side the score is 1 (nothing to disagree on).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Hashable, Iterable, Sequence

Clustering = Sequence[Iterable[Hashable]]


@dataclass(frozen=True)
class BlancScore:
    recall: float
    precision: float
    f1: float
    # the two parts; None where the part was left out of the average
    coref: tuple[float, float, float] | None = None        # (R_c, P_c, F_c)
    non_coref: tuple[float, float, float] | None = None    # (R_n, P_n, F_n)

    def to_json(self) -> dict:
        d = {"recall": round(self.recall, 6), "precision": round(self.precision, 6),
             "f1": round(self.f1, 6)}
        if self.coref is not None:
            d["coref"] = [round(x, 6) for x in self.coref]
        if self.non_coref is not None:
            d["non_coref"] = [round(x, 6) for x in self.non_coref]
        return d


def links(clusters: Clustering) -> tuple[set[frozenset], set[frozenset], set[Hashable]]:
    """(coreference links, non-coreference links, mentions) of a clustering. A mention listed
    again — in its own cluster or in a later one — is dropped where it repeats, as the reference
    scorer's de-duplication does."""
    groups: list[set[Hashable]] = []
    seen: set[Hashable] = set()
    for c in clusters:
        g = {m for m in c if m not in seen}
        seen |= g
        groups.append(g)
    coref = {frozenset(p) for g in groups for p in combinations(g, 2)}
    non = {frozenset((a, b)) for g1, g2 in combinations(groups, 2) for a in g1 for b in g2}
    return coref, non, seen


def _part(key: set, response: set) -> tuple[float, float, float]:
    if not key and not response:
        return 1.0, 1.0, 1.0
    if not key or not response:
        return 0.0, 0.0, 0.0
    common = len(key & response)
    r, p = common / len(key), common / len(response)
    return r, p, (2 * common / (len(key) + len(response)))


def blanc(key: Clustering, response: Clustering, *, corner_cases: str = "luo") -> BlancScore:
    """BLANC of ``response`` against ``key`` (each a list of clusters of hashable mentions,
    singletons included where they are known)."""
    if corner_cases not in ("luo", "reference"):
        raise ValueError("corner_cases must be 'luo' or 'reference'")
    c_k, n_k, m_k = links(key)
    c_r, n_r, m_r = links(response)
    if len(m_k) == 1 and len(m_r) == 1:
        v = 1.0 if m_k == m_r else 0.0
        return BlancScore(v, v, v, (v, v, v), (v, v, v))
    coref, non = _part(c_k, c_r), _part(n_k, n_r)
    if corner_cases == "reference":
        use_c, use_n = bool(c_k), bool(n_k)
        if not use_c and not use_n:     # neither kind of link in the key
            use_c, use_n = True, True
    else:
        use_c, use_n = bool(c_k or c_r), bool(n_k or n_r)
        if not use_c and not use_n:     # no link anywhere: at most one mention on each side
            v = 1.0 if m_k == m_r else 0.0
            return BlancScore(v, v, v, None, None)
    parts = [p for p, used in ((coref, use_c), (non, use_n)) if used]
    r = sum(p[0] for p in parts) / len(parts)
    p = sum(p[1] for p in parts) / len(parts)
    f = sum(p_[2] for p_ in parts) / len(parts)
    return BlancScore(r, p, f, coref if use_c else None, non if use_n else None)
