"""Hugging Face transformers token-classification models as the system under test.

A model is loaded by hub name or from a local folder written by ``save_pretrained``. Texts are
tokenised in batches with a fast tokenizer (character offsets are needed), the model gives a
label distribution per sub-token, sub-tokens are aggregated per word and the word labels are
decoded (IO, IOB1, IOB2, BIOES/BILOU) to character spans.

Words are the tokenizer's own pre-tokenizer words (``word_ids()``): maximal runs of non-space
characters, split further where the pre-tokenizer splits (BERT: at punctuation). A span runs from
the start of its first word to the end of its last word.

Long texts are never truncated silently: a text with more tokens than fit in ``max_length`` is
cut into overlapping windows of tokens; every token takes its prediction from the window in which
it is farthest from a cut (each window owns the middle of its overlaps), so every token of the
text is labelled with context on both sides where the text has any. ``stats()`` counts the texts
that needed more than one window.

torch and transformers are imported when a model is built, never when this module is imported.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from runner.errors import ModelNotAvailable, MtrunError
from runner.models.loading import pad_batch
from runner.tasks.ner.sut.base import CONLL_TO_COMMON, NERSystem, RawSpan

AGGREGATIONS = ("first", "max", "average")
_BEGIN, _INSIDE, _END, _SINGLE = "B", "I", "E", "S"
_PREFIXES = {"B": _BEGIN, "I": _INSIDE, "E": _END, "L": _END, "S": _SINGLE, "U": _SINGLE}


def parse_label(label: str) -> tuple[str | None, str | None]:
    """``"B-PER"`` → ``("B", "PER")``; ``"O"`` → ``(None, None)``; a bare ``"PER"`` (IO scheme)
    → ``("I", "PER")``. BILOU's L and U read as BIOES's E and S."""
    if label in ("O", "o", ""):
        return None, None
    for sep in ("-", "_"):
        head, s, rest = label.partition(sep)
        if s and rest and head.upper() in _PREFIXES:
            return _PREFIXES[head.upper()], rest
    return _INSIDE, label


def decode_words(words: Sequence[tuple[int, int, str, float]]) -> list[RawSpan]:
    """Word labels (start, end, label with its scheme prefix, probability) in text order →
    spans (start, end, type, mean word probability). Lenient about ill-formed sequences: an I-
    (or E-) after O or after another type opens a new entity, as IOB1 requires."""
    spans: list[RawSpan] = []
    cur: list[Any] | None = None  # [start, end, type, [probs]]

    def close() -> None:
        nonlocal cur
        if cur is not None:
            probs = cur[3]
            spans.append((cur[0], cur[1], cur[2], sum(probs) / len(probs)))
            cur = None

    for start, end, label, prob in words:
        tag, typ = parse_label(label)
        if tag is None:
            close()
            continue
        if tag in (_BEGIN, _SINGLE) or cur is None or cur[2] != typ:
            close()
            cur = [start, end, typ, [prob]]
        else:
            cur[1] = end
            cur[3].append(prob)
        if tag in (_END, _SINGLE):
            close()
    close()
    return spans


def aggregate(token_probs: Any, how: str) -> tuple[int, float]:
    """A word's label id and its probability from its sub-tokens' probability rows
    (a 2-D numpy array, sub-tokens in text order)."""
    if how == "first":
        row = token_probs[0]
    elif how == "max":
        row = token_probs[int(token_probs.max(axis=1).argmax())]
    elif how == "average":
        row = token_probs.mean(axis=0)
    else:
        raise ValueError(f"unknown aggregation {how!r} (one of {', '.join(AGGREGATIONS)})")
    label = int(row.argmax())
    return label, float(row[label])


def _looks_like_path(model: str) -> bool:
    # Hub names are "name" or "namespace/name"; anything else with a separator is a path.
    return (os.path.isabs(model) or model.startswith((".", "~")) or model.count("/") > 1
            or (os.sep != "/" and os.sep in model))


def _hint(model: str) -> str:
    return (f"point `model:` at a local folder written by save_pretrained (for example, on a "
            f"machine with network access: AutoTokenizer.from_pretrained({model!r})"
            f".save_pretrained(DIR) and AutoModelForTokenClassification.from_pretrained("
            f"{model!r}).save_pretrained(DIR), then copy DIR here)")


class HuggingFaceNER(NERSystem):
    name = "hf"
    word_score_kind = "logits"

    def __init__(self, *, model: str, revision: str | None = None, aggregation: str = "first",
                 max_length: int = 512, fp16: bool = False, device: str = "cpu",
                 label_map: Mapping[str, str | None] | None = None,
                 window_overlap: int | None = None, **kwargs: Any) -> None:
        super().__init__(label_map=CONLL_TO_COMMON if label_map is None else label_map,
                         **kwargs)
        if aggregation not in AGGREGATIONS:
            raise MtrunError(f"hf: unknown aggregation {aggregation!r} "
                             f"(one of {', '.join(AGGREGATIONS)})")
        if max_length < 8:
            raise MtrunError(f"hf: max_length must be at least 8 (got {max_length})")
        self.model_name = model
        self.revision = revision
        self.aggregation = aggregation
        self.requested_max_length = max_length
        self.windowed_texts = 0   # texts longer than one window
        self.windows = 0          # windows run in all

        try:
            import torch
        except ImportError as e:
            raise ModelNotAvailable(f"hf: torch is not installed ({e}); install it with: "
                                    f"pip install -e \".[hf]\"") from None
        try:
            self.device = torch.device(device)
        except (RuntimeError, TypeError) as e:
            raise MtrunError(f"hf: bad device {device!r}: {e}") from None
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise MtrunError(f"hf: device {device!r} asked for, but torch sees no CUDA GPU "
                             f"(torch {torch.__version__}); use device: cpu")
        if (self.device.type == "cuda" and self.device.index is not None
                and self.device.index >= torch.cuda.device_count()):
            raise MtrunError(f"hf: device {device!r} asked for, but torch sees "
                             f"{torch.cuda.device_count()} CUDA GPU(s)")
        self.fp16 = bool(fp16) and self.device.type == "cuda"
        self.dtype = torch.float16 if self.fp16 else torch.float32
        self.fp16_ignored = bool(fp16) and not self.fp16

        self.tokenizer, self.model = self._load(model, revision)
        self.id2label = {int(k): str(v) for k, v in self.model.config.id2label.items()}
        # Room for the tokens of the text in one window, after the special tokens.
        limit = max_length
        tok_max = getattr(self.tokenizer, "model_max_length", None)
        if isinstance(tok_max, int) and 0 < tok_max < 1_000_000:
            limit = min(limit, tok_max)
        else:
            pos = getattr(self.model.config, "max_position_embeddings", None)
            if isinstance(pos, int) and pos > 0:
                limit = min(limit, pos)
        self.max_length = limit
        self._prefix, self._suffix = self._special_tokens()
        self.content_length = self.max_length - len(self._prefix) - len(self._suffix)
        if self.content_length < 2:
            raise MtrunError(f"hf: max_length {self.max_length} leaves no room for text after "
                             f"{len(self._prefix) + len(self._suffix)} special tokens")
        if window_overlap is None:
            window_overlap = self.content_length // 4
        self.window_overlap = max(0, min(window_overlap, self.content_length // 2))
        self._pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        self._token_types = "token_type_ids" in getattr(self.tokenizer, "model_input_names", ())

    # -- loading ---------------------------------------------------------------------------
    def _load(self, model: str, revision: str | None) -> tuple[Any, Any]:
        try:
            import transformers
            from transformers import AutoModelForTokenClassification, AutoTokenizer
        except ImportError as e:
            raise ModelNotAvailable(f"hf: the transformers library is not installed ({e}); "
                                    f"install it with: pip install -e \".[hf]\"") from None
        path = Path(model).expanduser()
        if path.is_dir():
            if not (path / "config.json").is_file():
                raise ModelNotAvailable(
                    f"hf: model folder {model!r} has no config.json: it is not a folder written "
                    f"by save_pretrained. Write one with model.save_pretrained(DIR) and "
                    f"tokenizer.save_pretrained(DIR).")
            source, from_folder = str(path), True
        elif _looks_like_path(model) or path.exists():
            raise ModelNotAvailable(f"hf: model folder {model!r} does not exist; {_hint(model)}")
        else:
            source, from_folder = model, False
        where = f"{model!r}" + (f" (revision {revision!r})" if revision else "")
        bars = transformers.utils.logging.is_progress_bar_enabled()
        transformers.utils.logging.disable_progress_bar()  # no weight-loading bars in the log
        try:
            tokenizer = AutoTokenizer.from_pretrained(source, revision=revision)
            network = AutoModelForTokenClassification.from_pretrained(
                source, revision=revision, dtype=self.dtype)
        except (OSError, ValueError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            if not from_folder:
                from huggingface_hub import constants

                offline = ("" if constants.HF_HUB_OFFLINE
                           else "; set HF_HUB_OFFLINE=1 to skip network attempts")
                raise ModelNotAvailable(
                    f"hf: cannot load model {where}: not in the local Hugging Face cache and the "
                    f"hub could not provide it (no network, no such model or revision, or it "
                    f"needs a login): {first}\n  hint: {_hint(model)}{offline}") from None
            raise ModelNotAvailable(f"hf: cannot load model folder {model!r}: {first}") from None
        finally:
            if bars:
                transformers.utils.logging.enable_progress_bar()
        if not getattr(tokenizer, "is_fast", False):
            raise ModelNotAvailable(
                f"hf: model {where} has no fast tokenizer (the Rust `tokenizers` kind); one is "
                f"needed for character offsets. Save the model with a tokenizer.json.")
        self.transformers_version = transformers.__version__
        network.to(self.device)
        network.eval()
        return tokenizer, network

    def _special_tokens(self) -> tuple[list[int], list[int]]:
        """Ids put before and after one sequence ([CLS] … [SEP], <s> … </s>)."""
        enc = self.tokenizer("a", add_special_tokens=True, return_special_tokens_mask=True)
        ids, special = enc["input_ids"], enc["special_tokens_mask"]
        content = [i for i, s in enumerate(special) if not s]
        if not content:
            return [], []
        return ids[:content[0]], ids[content[-1] + 1:]

    def describe(self) -> dict[str, Any]:
        import torch

        info: dict[str, Any] = {
            "backend": "transformers",
            "model": self.model_name,
            "revision": self.revision,
            "commit": getattr(self.model.config, "_commit_hash", None),
            "model_type": getattr(self.model.config, "model_type", None),
            "transformers": self.transformers_version,
            "torch": torch.__version__,
            "labels": [self.id2label[i] for i in sorted(self.id2label)],
            "aggregation": self.aggregation,
            "max_length": self.max_length,
            "window_overlap": self.window_overlap,
            "device": str(self.device),
            "dtype": str(self.dtype).replace("torch.", ""),
        }
        if self.fp16_ignored:
            info["note"] = "fp16 asked for but ignored: half precision is used on CUDA only"
        return info

    def stats(self) -> dict[str, Any]:
        return {**super().stats(), "windows": self.windows,
                "long_texts_windowed": self.windowed_texts}

    # -- prediction ------------------------------------------------------------------------
    def _windows(self, n: int, word_ids: Sequence[int | None]) -> list[tuple[int, int]]:
        """Token ranges [start, end) covering 0..n, each at most ``content_length`` long,
        consecutive ones overlapping by about ``window_overlap``; a window starts at the start
        of a word where that costs little."""
        size = self.content_length
        if n <= size:
            return [(0, n)]
        step = size - self.window_overlap
        out = [(0, size)]
        while out[-1][1] < n:
            prev_start, prev_end = out[-1]
            start = prev_start + step
            back = 0
            while (start > prev_start + 1 and back < self.window_overlap // 2
                   and word_ids[start] is not None and word_ids[start] == word_ids[start - 1]):
                start -= 1
                back += 1
            start = min(start, prev_end)  # no gap between windows
            out.append((start, min(start + size, n)))
        return out

    def _forward(self, rows: list[list[int]]) -> list[Any]:
        """Label logits (float32 numpy, one row per token) for each window of ids."""
        import torch

        out: list[Any] = []
        for i in range(0, len(rows), self.batch_size):
            chunk = rows[i:i + self.batch_size]
            ids, mask = pad_batch(chunk, self._pad_id, self.device)
            inputs = {"input_ids": ids, "attention_mask": mask}
            if self._token_types:
                inputs["token_type_ids"] = torch.zeros_like(inputs["input_ids"])
            with torch.inference_mode():
                logits = self.model(**inputs).logits
            logits = logits.float().cpu().numpy()
            out.extend(logits[j, :len(r)] for j, r in enumerate(chunk))
        return out

    def _predict_raw(self, texts: Sequence[str]) -> list[list[RawSpan]]:
        return [[] if tokens is None else self._spans(text, tokens[0], tokens[1],
                                                        _softmax(tokens[2]))
                for text, tokens in zip(texts, self._token_logits(texts))]

    def _token_logits(self, texts: Sequence[str]) -> list[Any]:
        """Per text: (offsets, word ids, logits per token) over the whole text (windows joined),
        or None for a text without tokens."""
        import numpy as np

        enc = self.tokenizer(list(texts), add_special_tokens=False, return_offsets_mapping=True,
                             truncation=False, padding=False, verbose=False)
        pre, post = self._prefix, self._suffix
        rows: list[list[int]] = []
        plan: list[list[tuple[int, int, int, int]]] = []  # per text: (row, start, lo, hi)
        for t in range(len(texts)):
            ids = enc["input_ids"][t]
            wins = self._windows(len(ids), enc.word_ids(t)) if ids else []
            if len(wins) > 1:
                self.windowed_texts += 1
            # Window k owns tokens [cuts[k], cuts[k + 1]): up to the middle of each overlap.
            cuts = [0]
            for k in range(len(wins) - 1):
                cuts.append(max(cuts[-1], (wins[k + 1][0] + wins[k][1]) // 2))
            cuts.append(len(ids))
            owned = []
            for k, (s, e) in enumerate(wins):
                owned.append((len(rows), s, cuts[k], cuts[k + 1]))
                rows.append(pre + ids[s:e] + post)
            plan.append(owned)
        self.windows += len(rows)
        probs = self._forward(rows) if rows else []

        results: list[Any] = []
        for t, text in enumerate(texts):
            ids = enc["input_ids"][t]
            if not ids:
                results.append(None)
                continue
            token_logits = np.empty((len(ids), probs[plan[t][0][0]].shape[-1]), dtype=np.float32)
            for row, s, lo, hi in plan[t]:
                p = probs[row]
                token_logits[lo:hi] = p[len(pre) + lo - s:len(pre) + hi - s]
            results.append((enc["offset_mapping"][t], enc.word_ids(t), token_logits))
        return results

    def _spans(self, text: str, offsets: Sequence[tuple[int, int]],
               word_ids: Sequence[int | None], token_probs: Any) -> list[RawSpan]:
        words = []
        for start, end, toks in _word_tokens(text, offsets, word_ids):
            label_id, prob = aggregate(token_probs[toks], self.aggregation)
            words.append((start, end, self.id2label.get(label_id, f"LABEL_{label_id}"), prob))
        words.sort(key=lambda w: (w[0], w[1]))
        return decode_words(words)

    # -- label scores (for attacks) --------------------------------------------------------
    def predict_scores(self, texts: Sequence[str]) -> list[Any]:
        """Per text: (Prediction, [(start, end, {BIO label in common types: logit})] per word),
        the raw logits the paper's importance uses, aggregated per word like the labels (first
        sub-token, the most confident one, or the mean). Labels that map to the same common
        label (B-GPE, B-LOC → B-LOCATION) keep the highest logit; dropped labels count as O.
        Answers are cached per text; the prediction also goes into the prediction cache."""
        from collections import OrderedDict

        cache = getattr(self, "_score_cache", None)
        if cache is None:
            cache = self._score_cache = OrderedDict()
        todo = list(dict.fromkeys(t for t in texts if t not in cache))
        for i in range(0, len(todo), self.batch_size * 4):
            chunk = todo[i:i + self.batch_size * 4]
            self.calls += 1
            self.texts_sent += len(chunk)
            for text, tokens in zip(chunk, self._token_logits(chunk)):
                if tokens is None:
                    pred, scores = self._map([]), []
                else:
                    offsets, word_ids, logits = tokens
                    raw = self._spans(text, offsets, word_ids, _softmax(logits))
                    pred = self._map(raw)
                    scores = self._word_scores(text, offsets, word_ids, logits)
                self.cache.put((self.fingerprint_cached, text), pred)
                cache[text] = (pred, scores)
        while len(cache) > 20000:
            cache.popitem(last=False)
        return [cache[t] for t in texts]

    def _word_scores(self, text: str, offsets: Any, word_ids: Any,
                     logits: Any) -> list[tuple[int, int, dict[str, float]]]:
        keys = getattr(self, "_common_keys", None)
        if keys is None:
            keys = self._common_keys = [self._common_label(self.id2label.get(i, f"LABEL_{i}"))
                                        for i in range(logits.shape[-1])]
        probs = _softmax(logits)
        out = []
        for start, end, toks in _word_tokens(text, offsets, word_ids):
            if self.aggregation == "average":
                row = logits[toks].mean(axis=0)
            elif self.aggregation == "max":
                row = logits[toks[int(probs[toks].max(axis=1).argmax())]]
            else:
                row = logits[toks[0]]
            scores: dict[str, float] = {}
            for key, value in zip(keys, row.tolist()):
                if key not in scores or value > scores[key]:
                    scores[key] = value
            out.append((start, end, scores))
        out.sort(key=lambda w: (w[0], w[1]))
        return out

    def _common_label(self, raw: str) -> str:
        tag, typ = parse_label(raw)
        if tag is None:
            return "O"
        common = self.common_type(typ)
        if common is None:
            return "O"
        return ("B-" if tag in (_BEGIN, _SINGLE) else "I-") + common


def _softmax(logits: Any) -> Any:
    import numpy as np

    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _word_tokens(text: str, offsets: Sequence[tuple[int, int]],
                 word_ids: Sequence[int | None]) -> list[tuple[int, int, list[int]]]:
    """(start, end, sub-token indices) of each word, in text order."""
    # Group sub-tokens into words, in text order; tokens without a word are their own word.
    groups: dict[Any, list[int]] = {}
    for i, w in enumerate(word_ids):
        groups.setdefault(("w", w) if w is not None else ("t", i), []).append(i)
    words = []
    for toks in groups.values():
        toks = [i for i in toks if offsets[i][1] > offsets[i][0]]
        if not toks:
            continue
        start = min(offsets[i][0] for i in toks)
        end = max(offsets[i][1] for i in toks)
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start >= end:
            continue
        words.append((start, end, toks))
    words.sort(key=lambda w: (w[0], w[1]))
    return words
