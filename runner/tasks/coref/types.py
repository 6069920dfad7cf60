"""Value types of the coreference task. Standard library only.

A *mention* is a character range of a document's text (end exclusive); a *cluster* is a set of
two or more mentions that refer to the same entity; a prediction (or a gold annotation) is a set
of clusters. Systems do not report singletons (CREST §2.2, footnote 2): a one-mention cluster is
dropped when a prediction is built, and gold singletons are ignored the same way, so gold and
predictions are compared on equal terms.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence


class CorefInputError(ValueError):
    """Malformed mentions or clusters; the message says what is wrong (the corpus reader adds
    file and line)."""


@dataclass(frozen=True, order=True)
class Mention:
    start: int
    end: int

    def __post_init__(self) -> None:
        if not (isinstance(self.start, int) and isinstance(self.end, int)):
            raise CorefInputError(f"mention offsets must be integers, got {self.start!r}, {self.end!r}")
        if not 0 <= self.start < self.end:
            raise CorefInputError(f"mention {self.start}..{self.end}: start must be ≥ 0 and "
                                  f"before end")

    def text_in(self, text: str) -> str:
        return text[self.start:self.end]

    def overlaps(self, other: "Mention") -> bool:
        return self.start < other.end and other.start < self.end

    def to_json(self) -> list[int]:
        return [self.start, self.end]


Cluster = tuple[Mention, ...]


def normalise_clusters(clusters: Iterable[Iterable[Mention]]) -> tuple[Cluster, ...]:
    """Clusters as sorted tuples of distinct mentions, singletons dropped, in order of their
    first mention. A mention in two clusters is an error: a partition cannot hold it twice."""
    out: list[Cluster] = []
    seen: dict[Mention, int] = {}
    for n, cluster in enumerate(clusters):
        ms = tuple(sorted(set(cluster)))
        for m in ms:
            if m in seen:
                raise CorefInputError(f"mention {m.start}..{m.end} is in clusters {seen[m]} and {n}")
            seen[m] = n
        if len(ms) >= 2:
            out.append(ms)
    return tuple(sorted(out))


@dataclass(frozen=True)
class CorefPrediction:
    """What a coreference system said about one text: its clusters (≥ 2 mentions each)."""

    clusters: tuple[Cluster, ...]

    @classmethod
    def build(cls, clusters: Iterable[Iterable[tuple[int, int] | Mention]],
              text: str | None = None) -> "CorefPrediction":
        """From ``[[(start, end), ...], ...]``; checks the offsets against ``text`` if given."""
        built = []
        for cluster in clusters:
            ms = []
            for m in cluster:
                mention = m if isinstance(m, Mention) else Mention(int(m[0]), int(m[1]))
                if text is not None and mention.end > len(text):
                    raise CorefInputError(f"mention {mention.start}..{mention.end} is outside the "
                                          f"text ({len(text)} characters)")
                ms.append(mention)
            built.append(ms)
        return cls(normalise_clusters(built))

    @property
    def mentions(self) -> tuple[Mention, ...]:
        return tuple(sorted(m for c in self.clusters for m in c))

    def cluster_of(self) -> dict[Mention, int]:
        return {m: n for n, c in enumerate(self.clusters) for m in c}

    def to_json(self) -> list[list[list[int]]]:
        return [[m.to_json() for m in c] for c in self.clusters]

    def describe(self, text: str) -> str:
        """``{John, he} {the bank, it}``: for messages and the console."""
        return " ".join("{" + ", ".join(m.text_in(text) for m in c) + "}"
                        for c in self.clusters) or "(no cluster)"


@dataclass(frozen=True)
class CorefDocument:
    """One source input: a text of one or more sentences, optional gold clusters, optional
    ``year`` the text is set (``name_swap`` picks names of that time). ``origin`` is
    ``file:line`` for messages."""

    id: str
    text: str
    gold: CorefPrediction | None = None
    origin: str = ""
    year: int | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "text": self.text}
        if self.gold is not None:
            d["clusters"] = self.gold.to_json()
        if self.year is not None:
            d["year"] = self.year
        return d


def prediction_from_json(items: Sequence[Any], text: str | None = None) -> CorefPrediction:
    """Clusters written as ``[[[s, e], ...], ...]`` or ``[[{"start": s, "end": e}, ...], ...]``
    (the corpus and the ``python``/``http`` systems use this shape). Raises
    :class:`CorefInputError` naming the cluster and mention that is wrong."""
    if not isinstance(items, (list, tuple)):
        raise CorefInputError("clusters must be a list of clusters, each a list of mentions "
                              "[start, end] or {\"start\": ..., \"end\": ...}")
    clusters = []
    for k, cluster in enumerate(items):
        if not isinstance(cluster, (list, tuple)):
            raise CorefInputError(f"clusters[{k}] must be a list of mentions, got "
                                  f"{type(cluster).__name__}")
        ms = []
        for j, m in enumerate(cluster):
            where = f"clusters[{k}][{j}]"
            if isinstance(m, dict):
                start, end = m.get("start"), m.get("end")
            elif isinstance(m, (list, tuple)) and len(m) == 2:
                start, end = m
            else:
                raise CorefInputError(f"{where} must be [start, end] or {{\"start\": int, "
                                      f"\"end\": int}}, got {str(m)[:60]}")
            if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) \
                    or isinstance(end, bool):
                raise CorefInputError(f"{where}: offsets must be integers, got {start!r}, {end!r}")
            if not 0 <= start < end:
                raise CorefInputError(f"{where}: offsets {start}..{end} must satisfy "
                                      f"0 ≤ start < end")
            if text is not None and end > len(text):
                raise CorefInputError(f"{where}: offsets {start}..{end} are outside the text "
                                      f"({len(text)} characters)")
            ms.append(Mention(start, end))
        clusters.append(ms)
    return CorefPrediction(normalise_clusters(clusters))
