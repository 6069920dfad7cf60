"""Mutants of a suspicious entity for TIN Algorithm 1 (:mod:`runner.tasks.ner.repair.relabel`):
the jobs, the mutants, and the candidate sources that make them — a masked LM filling each of the
entity's pieces in turn (``masked_lm``, as in the paper) or entities seen elsewhere in the corpus
put in its place (``corpus``, the offline alternative)."""
from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Protocol, Sequence

from runner.models.loading import pad_batch
from runner.tasks.ner.repair.categories import occurrences


@dataclass(frozen=True)
class Job:
    """Relabel the entity at ``text[start:end]``. ``disputed``: the categories the violation's two
    sentences gave the entity ("NULL" for none), which ``vote_labels: disputed`` keeps the vote
    to; empty when unknown. ``partner``: the entity's occurrence in the violation's other
    sentence, ``(text, start, end)``, which the referee panel reads too."""
    text: str
    start: int
    end: int
    disputed: tuple[str, ...] = ()
    partner: tuple[str, int, int] | None = None


@dataclass(frozen=True)
class Mutant:
    job: Job
    text: str          # s_m
    start: int         # e_m in s_m
    end: int
    p: float
    subword: bool      # w_a is a sub-word
    replaced: str      # w_a
    by: str            # w_b


class CandidateSource(Protocol):
    def mutants(self, jobs: Sequence[Job]) -> list[list[Mutant]]: ...
    def describe(self) -> dict[str, Any]: ...


def _restore_case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


class MaskedLMCandidates:
    """Algorithm 1, lines 4–6 and 10–11: each word/sub-word of e_s (the masked LM's tokens) is
    masked in turn; the top-K fillers with their raw logits make the mutants. A continuation
    piece is only replaced by a continuation piece, a word start by a word start, and a filler
    equal to the masked piece makes no mutant. An uncased model's fillers take the masked piece's
    case. All masked sentences of all jobs go through the masked LM together."""

    name = "masked_lm"

    def __init__(self, mlm: Any, top_k: int) -> None:
        self.mlm = mlm
        self.top_k = top_k

    def describe(self) -> dict[str, Any]:
        return {"candidates": "masked_lm", "masked_lm": self.mlm.name}

    def pieces(self, job: Job) -> list[tuple[int, int, bool, bool]]:
        """(start, end, is a sub-word, is a continuation piece) of each token inside the entity."""
        enc = self.mlm.tokenizer(job.text, add_special_tokens=False, return_offsets_mapping=True)
        offsets, words = enc["offset_mapping"], enc.word_ids()
        out = []
        for i, (a, b) in enumerate(offsets):
            if b <= a or a < job.start or b > job.end:
                continue
            same = [j for j, w in enumerate(words) if w == words[i]]
            out.append((a, b, len(same) > 1, i != same[0]))
        return out

    def mutants(self, jobs: Sequence[Job]) -> list[list[Mutant]]:
        items, meta = [], []
        tok, limit = self.mlm.tokenizer, self.mlm.max_length
        for n, job in enumerate(jobs):
            for a, b, subword, continuation in self.pieces(job):
                masked = job.text[:a] + self.mlm.mask_token + job.text[b:]
                if self.mlm.mask_token_id not in tok(masked, truncation=True,
                                                     max_length=limit)["input_ids"]:
                    continue        # the piece lies past the masked LM's max_length
                items.append(masked)
                meta.append((n, a, b, subword, continuation))
        out: list[list[Mutant]] = [[] for _ in jobs]
        if not items:
            return out
        for (n, a, b, subword, continuation), cands in zip(meta, self.mlm.top_k(items, self.top_k)):
            job = jobs[n]
            w_a = job.text[a:b]
            for token, p, is_sub in cands:
                if is_sub != continuation or not token:
                    continue
                w_b = _restore_case(token, w_a) if self.mlm.lowercase else token
                if w_b == w_a:
                    continue
                growth = len(w_b) - len(w_a)
                out[n].append(Mutant(job, job.text[:a] + w_b + job.text[b:], job.start,
                                     job.end + growth, p, subword, w_a, w_b))
        return out


class CorpusEntityCandidates:
    """Offline candidate source: entities the system labelled elsewhere in the corpus (any type),
    each put in place of the whole suspicious entity. Their score p, in place of the paper's raw
    logit of one filler, is the masked LM's *standardised* logit of the candidate's pieces at the
    entity's position: the entity is replaced by as many mask tokens as the candidate has pieces,
    each piece's logit at its mask is standardised over the vocabulary ((logit − mean) / std, how
    many standard deviations it stands above an average token there) and p is their mean. The
    standardisation makes ``PThreshold`` mean the same for any masked LM, including the small
    embedded one whose raw logits are on another scale; candidates of one length share one masked
    sentence, and all masked sentences of all jobs go through the model together. The ``top_k``
    best-scored candidates are kept. The pool grows as sources are read (``observe``): a batch's
    candidates come from every batch so far, itself included."""

    name = "corpus"
    max_pieces = 8

    def __init__(self, mlm: Any, top_k: int, max_pool: int = 5000, score: str = "masked_lm",
                 encoder: Any = None) -> None:
        if score not in ("masked_lm", "similarity", "contexts"):
            raise ValueError(f"unknown corpus candidate score {score!r}")
        if score != "masked_lm" and encoder is None:
            raise ValueError(f"the {score} score needs an encoder")
        self.mlm = mlm
        self.top_k = top_k
        self.max_pool = max_pool
        self.score = score
        self.encoder = encoder
        self.pool: Counter[str] = Counter()
        self._pieces: dict[str, list[int] | None] = {}
        self._names: dict[str, Any] = {}     # entity → unit vector of its name (similarity)
        # entity → up to ``contexts_per_entity`` (sentence, start, end) where the system labelled
        # it (the contexts score puts the suspicious entity there)
        self.contexts: dict[str, list[tuple[str, int, int]]] = {}
        self.contexts_per_entity = 3

    def describe(self) -> dict[str, Any]:
        if self.score == "contexts":
            return {"candidates": "corpus", "encoder": self.encoder.name, "pool": len(self.pool),
                    "score": "the suspicious entity put in the corpus sentences of the pool "
                             "entities whose names are closest to it; standardised similarity "
                             "of the names"}
        if self.score == "similarity":
            return {"candidates": "corpus", "encoder": self.encoder.name, "pool": len(self.pool),
                    "score": "standardised similarity of the candidate's name to the entity's "
                             "(encoder embeddings of the names alone)"}
        return {"candidates": "corpus", "masked_lm": self.mlm.name, "pool": len(self.pool),
                "score": "mean standardised masked-LM logit of the candidate's pieces"}

    def observe(self, texts: Iterable[str], predictions: Iterable[Any]) -> list[Any]:
        """Add the entities of these predictions to the pool; returns what a resumed run needs
        to rebuild it: the entities new to it, and for the contexts score each new context as
        ``[entity, sentence, start, end]``."""
        added: list[Any] = []
        for text, pred in zip(texts, predictions):
            for s in pred.spans:
                e = s.text_in(text).strip()
                if e and (e in self.pool or len(self.pool) < self.max_pool):
                    if e not in self.pool:
                        added.append(e)
                    self.pool[e] += 1
                    if self.score == "contexts" and e == s.text_in(text):
                        seen = self.contexts.setdefault(e, [])
                        if len(seen) < self.contexts_per_entity and \
                                all(t != text for t, _, _ in seen):
                            seen.append((text, s.start, s.end))
                            added.append([e, text, s.start, s.end])
        return added

    def restore(self, added: Any) -> None:
        """Take back one entry returned by :meth:`observe` (``--resume``)."""
        if isinstance(added, list):
            e, text, start, end = added
            self.contexts.setdefault(e, []).append((text, int(start), int(end)))
        else:
            self.pool[added] += 1

    def pieces(self, entity: str) -> list[int] | None:
        """Token ids of the entity's pieces (None: unknown piece, or too long)."""
        if entity not in self._pieces:
            tok = self.mlm.tokenizer
            ids = tok.convert_tokens_to_ids(tok.tokenize(entity.lower() if self.mlm.lowercase
                                                         else entity))
            ok = 0 < len(ids) <= self.max_pieces and tok.unk_token_id not in ids
            self._pieces[entity] = list(ids) if ok else None
        return self._pieces[entity]

    def _mask_logits(self, rows: list[list[int]]) -> list[Any]:
        """Vocabulary logits at the mask tokens of each row (a (masks, vocab) tensor per row). The
        language-model head runs on the mask positions only where the model exposes its encoder
        and head separately (BERT's ``cls``, RoBERTa's ``lm_head``), else on every position."""
        import torch

        mlm = self.mlm
        model = mlm.model
        positions = [[q for q, t in enumerate(r) if t == mlm.mask_token_id] for r in rows]
        base = getattr(model, getattr(model, "base_model_prefix", ""), None)
        head = getattr(model, "cls", None) or getattr(model, "lm_head", None)
        if base is None or head is None:
            logits = mlm._forward(rows)
            return [logits[j, pos] for j, pos in enumerate(positions)]
        ids, att = pad_batch(rows, mlm.tokenizer.pad_token_id, mlm.device)
        with torch.inference_mode():
            hidden = base(input_ids=ids, attention_mask=att)[0]
            rj = torch.tensor([j for j, pos in enumerate(positions) for _ in pos], dtype=torch.long)
            rq = torch.tensor([q for pos in positions for q in pos], dtype=torch.long)
            picked = head(hidden[rj.to(hidden.device), rq.to(hidden.device)])
        mlm.forward_passes += 1
        out, k = [], 0
        for pos in positions:
            out.append(picked[k:k + len(pos)])
            k += len(pos)
        return out

    def _zscores(self, texts: list[str], columns: list[int]) -> list[Any]:
        """Per text, a (masks, len(columns)) array: the standardised logits (over the whole
        vocabulary) of the tokens ``columns`` at each mask (None when truncation lost a mask).
        One forward pass per chunk of ``batch_size`` texts."""
        import torch

        from runner.models.mlm import _order_by_length

        tok = self.mlm.tokenizer
        enc = [tok(t, truncation=True, max_length=self.mlm.max_length)["input_ids"] for t in texts]
        wanted = [t.count(self.mlm.mask_token) for t in texts]
        cols = torch.tensor(columns, dtype=torch.long)
        out: list[Any] = [None] * len(texts)
        for chunk in _order_by_length([len(e) for e in enc], self.mlm.batch_size):
            for i, rows in zip(chunk, self._mask_logits([enc[i] for i in chunk])):
                if rows.shape[0] != wanted[i]:
                    continue
                rows = rows.float()
                mean = rows.mean(-1, keepdim=True)
                std = rows.std(-1, keepdim=True).clamp_min(1e-6)
                out[i] = ((rows[:, cols.to(rows.device)] - mean) / std).cpu().numpy()
        return out

    def _name_vectors(self, names: Sequence[str]) -> Any:
        """Unit vectors of entity names embedded alone (each name embedded once per run). Which
        names are embedded together depends on the run's history (a Ray worker sees other
        batches than the local engine), and batch shapes move the last bits of a vector, so that
        a standardised similarity could round differently: the names go through fixed-shape
        passes (:meth:`~runner.models.encoder.TextEncoder.embed_spans` ``fixed_shapes``), where a
        name's vector does not depend on its companions."""
        import numpy as np

        todo = [e for e in dict.fromkeys(names) if e not in self._names]
        if todo:
            vecs = self.encoder.embed_spans([(e, 0, len(e)) for e in todo], fixed_shapes=True)
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            vecs = np.where(norms > 0, vecs / np.where(norms > 0, norms, 1), np.nan)
            self._names.update(zip(todo, vecs))
        return np.array([self._names[e] for e in names])

    def _name_zscores(self, jobs: Sequence[Job], pool: Sequence[str]) -> Any:
        """Per job, the cosine of its entity's name to each pool name, standardised over the pool
        ((cos − mean) / std)."""
        import numpy as np

        pool_vecs = self._name_vectors(pool)
        targets = self._name_vectors([j.text[j.start:j.end].strip() for j in jobs])
        with np.errstate(invalid="ignore"):
            cos = np.nan_to_num(targets @ pool_vecs.T, nan=-1.0)
        return [(row - float(row.mean())) / (float(row.std()) or 1.0) for row in cos]

    def _similar_mutants(self, jobs: Sequence[Job]) -> list[list[Mutant]]:
        """Candidates by name similarity: pool entities whose names are closest to e_s's (the
        encoder's embedding of the names alone). p is that cosine standardised over the pool
        ((cos − mean) / std: how much closer than an average pool entity), so ``PThreshold``
        counts standard deviations as with the masked-LM score."""
        out: list[list[Mutant]] = [[] for _ in jobs]
        pool = sorted(self.pool)
        if len(pool) < 2:
            return out
        for n, (job, z) in enumerate(zip(jobs, self._name_zscores(jobs, pool))):
            e_s = job.text[job.start:job.end]
            scored = sorted((-float(z[i]), e) for i, e in enumerate(pool)
                            if e != e_s and e.lower() != e_s.lower()
                            and not occurrences(e, job.text))
            for neg, e in scored[:self.top_k]:
                out[n].append(Mutant(job, job.text[:job.start] + e + job.text[job.end:],
                                     job.start, job.start + len(e), -neg, False, e_s, e))
        return out

    def _context_mutants(self, jobs: Sequence[Job]) -> list[list[Mutant]]:
        """Departure from TIN for offline use: rather than changing the entity in its sentence,
        the entity is put in other sentences of the corpus, in the place of a pool entity whose
        name is close to it (so the slot suits it), and the system's labels of it there vote.
        A violation shows that the system's type for the entity depends on its context; the
        vote asks which type it gives the entity in the contexts where names like it stand, so
        both sentences of a violation get the same evidence. p is the standardised similarity of
        the two names, as with the similarity score; the sentence-embedding filter compares the
        entity in its own sentence with the entity in the borrowed one."""
        import numpy as np

        out: list[list[Mutant]] = [[] for _ in jobs]
        pool = sorted(e for e in self.pool if self.contexts.get(e))
        if len(pool) < 2:
            return out
        for n, (job, z) in enumerate(zip(jobs, self._name_zscores(jobs, pool))):
            e_s = job.text[job.start:job.end]
            order = np.argsort(-z, kind="stable")
            for i in order:
                if len(out[n]) >= self.top_k:
                    break
                e = pool[int(i)]
                if e.lower() == e_s.lower():
                    continue
                for text, a, b in self.contexts[e]:
                    if len(out[n]) >= self.top_k:
                        break
                    if text == job.text or occurrences(e_s, text):
                        continue
                    out[n].append(Mutant(job, text[:a] + e_s + text[b:], a, a + len(e_s),
                                         float(z[i]), False, e, e_s))
        return out

    def mutants(self, jobs: Sequence[Job]) -> list[list[Mutant]]:
        out: list[list[Mutant]] = [[] for _ in jobs]
        if not jobs or not self.pool:
            return out
        if self.score == "contexts":
            return self._context_mutants(jobs)
        if self.score == "similarity":
            return self._similar_mutants(jobs)
        pool = [e for e in sorted(self.pool) if self.pieces(e) is not None]
        lengths = sorted({len(self.pieces(e)) for e in pool})
        masked, where = [], {}
        for n, job in enumerate(jobs):
            for length in lengths:
                where[(n, length)] = len(masked)
                masked.append(job.text[:job.start] + " ".join([self.mlm.mask_token] * length)
                              + job.text[job.end:])
        import numpy as np

        columns = sorted({i for e in pool for i in self.pieces(e)})
        col = {i: c for c, i in enumerate(columns)}
        z = self._zscores(masked, columns)
        # Candidates grouped by length: (names, (n, length) matrix of their pieces' columns).
        groups = {}
        for length in lengths:
            names = [e for e in pool if len(self.pieces(e)) == length]
            groups[length] = (names, np.array([[col[i] for i in self.pieces(e)] for e in names]))
        for n, job in enumerate(jobs):
            e_s = job.text[job.start:job.end]
            scored = []
            for length, (names, cols) in groups.items():
                rows = z[where[(n, length)]]
                if rows is None:
                    continue
                ps = rows[np.arange(length)[None, :], cols].mean(axis=1)
                for e, p in zip(names, ps.tolist()):
                    if e != e_s and not (e in job.text and occurrences(e, job.text)):
                        scored.append((-p, e))
            scored.sort()
            for neg, e in scored[:self.top_k]:
                out[n].append(Mutant(job, job.text[:job.start] + e + job.text[job.end:],
                                     job.start, job.start + len(e), -neg, False, e_s, e))
        return out


class LMContextCandidates:
    """Offline candidate source ``lm`` (not in the paper, whose mutants change the entity): the
    suspicious entity stays as it is and its **context** changes. The ``words`` non-entity
    content words nearest to the entity (lower-case words, not stop words, outside the entity;
    nearest first by word distance, either side) are replaced one at a time by the causal LM's
    ``top_k`` proposals from their left context (:meth:`~runner.models.lm.CausalLM.propose_left`:
    one pass per sentence for all its slots; lower-case one-token words, stop words left out).
    Each mutant is then scored whole: its naturalness drop ε = score(s) − score(s_m), the mean
    log-probability per token (:meth:`~runner.models.lm.CausalLM.score`), and its ``p`` is the
    rise of the per-token perplexity in percent, 100·(exp(ε) − 1): the Relabeler keeps a mutant
    whose rise is at most ``PThreshold`` (so ``PThreshold`` 5.5 keeps mutants at most 5.5 % less
    natural per token; a mutant more natural than its source has a negative rise). The question
    asked of the system is the TIN one — which type does it give the same entity in a slightly
    different, still natural sentence — with the entity's own words untouched."""

    name = "lm"

    def __init__(self, lm: Any, top_k: int, words: int = 4) -> None:
        self.lm = lm
        self.top_k = top_k
        self.words = words
        self._scores: dict[str, float] = {}     # text → naturalness
        # a job asked again (another rule) costs nothing: (job, words, top_k) → its mutants
        self._made: dict[tuple[Job, int, int], list[Mutant]] = {}

    def describe(self) -> dict[str, Any]:
        return {"candidates": "lm", "lm": self.lm.name, "context_words": self.words,
                "top_k": self.top_k,
                "p": "per-token perplexity rise of the mutant in percent, 100·(exp(ε) − 1), "
                     "ε = score(s) − score(s_m) (mean log-probability per token); kept when "
                     "p ≤ PThreshold"}

    @staticmethod
    @functools.lru_cache(maxsize=1)
    def stop_words() -> frozenset[str]:
        """spaCy's English stop words and the repair's function words (made once)."""
        from runner.tasks.ner.repair.categories import _FUNCTION_WORDS

        try:
            from runner.text.lm_candidates import _stop_words

            return _stop_words("en") | _FUNCTION_WORDS
        except ImportError:          # no spaCy: the short list
            return _FUNCTION_WORDS

    def slots(self, job: Job) -> list[tuple[int, int]]:
        """The ``words`` content words nearest the entity, outside it: (start, end) each."""
        import re

        stop = self.stop_words()
        words = [(m.start(), m.end()) for m in re.finditer(r"[A-Za-z][A-Za-z'-]*", job.text)]
        before = [w for w in words if w[1] <= job.start]
        after = [w for w in words if w[0] >= job.end]
        # distance in words from the entity (1 = adjacent)
        ranked = [(len(before) - i, 0, w) for i, w in enumerate(before)] + \
                 [(i + 1, 1, w) for i, w in enumerate(after)]
        out = []
        for _, _, (a, b) in sorted(ranked):
            w = job.text[a:b]
            if w.islower() and len(w) > 1 and w not in stop and "'" not in w:
                out.append((a, b))
                if len(out) >= self.words:
                    break
        return out

    def _score(self, texts: Sequence[str]) -> dict[str, float]:
        todo = [t for t in dict.fromkeys(texts) if t not in self._scores]
        if todo:
            self._scores.update(zip(todo, self.lm.score(todo)))
        return {t: self._scores[t] for t in texts}

    def mutants(self, jobs: Sequence[Job]) -> list[list[Mutant]]:
        key = (self.words, self.top_k)
        todo = [j for j in dict.fromkeys(jobs) if (j, *key) not in self._made]
        if todo:
            self._made.update(((j, *key), m) for j, m in zip(todo, self._mutants(todo)))
        return [list(self._made[(j, *key)]) for j in jobs]

    def _mutants(self, jobs: Sequence[Job]) -> list[list[Mutant]]:
        from runner.models.lm_parts import perplexity_rise

        out: list[list[Mutant]] = [[] for _ in jobs]
        slots, owners = [], []
        for n, job in enumerate(jobs):
            for a, b in self.slots(job):
                slots.append((job.text, a, b))
                owners.append(n)
        if not slots:
            return out
        stop = self.stop_words()
        got = self.lm.propose_left(slots, self.top_k, exclude=[stop] * len(slots),
                                   keep=lambda i, w: w.islower() and len(w) > 1)
        made: list[tuple[int, str, int, int, str, str]] = []
        for (text, a, b), n, proposals in zip(slots, owners, got):
            job = jobs[n]
            w_a = text[a:b]
            for w_b, _ in proposals:
                w_b = _restore_case(w_b, w_a)
                if w_b.lower() == w_a.lower():
                    continue
                shift = len(w_b) - len(w_a) if b <= job.start else 0
                made.append((n, text[:a] + w_b + text[b:], job.start + shift, job.end + shift,
                             w_a, w_b))
        scores = self._score([j.text for j in jobs] + [m[1] for m in made])
        for n, text, start, end, w_a, w_b in made:
            rise = perplexity_rise(scores[jobs[n].text], scores[text])
            out[n].append(Mutant(jobs[n], text, start, end, rise, False, w_a, w_b))
        return out
