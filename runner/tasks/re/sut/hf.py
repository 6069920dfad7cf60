"""Transformers relation classifiers as the system under test.

``hf`` — sequence classification over the sentence with entity markers
(:mod:`runner.tasks.re.sut.markers`): the classifiers fine-tuned on TACRED the way Baldini
Soares et al. and Zhou & Chen do. Labels are the model's ``id2label``; the label map sends them
to the suite's (e.g. ``LABEL_3`` → ``per:spouse`` for a model saved without names).

``luke`` — LUKE's entity-pair classification head (``LukeForEntityPairClassification``, e.g.
``studio-ousia/luke-large-finetuned-tacred``, the paper's LUKE): the tokenizer receives the head's
and the tail's character spans (``task="entity_pair_classification"``) and adds LUKE's own
``<ent>``/``<ent2>`` markers.

Both load a hub name or a local folder written by ``save_pretrained``; ``hf`` also takes
``mtrun/re-minilm-redocred``, the embedded classifier (:mod:`runner.tasks.re.train`: MiniLM with
typed markers, trained on Re-DocRED; built at first use from its shipped parameters and kept in
the user cache). A model that cannot
be found fails with exit 4 and the command that saves it to a folder. torch and transformers are
imported when a model is built.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from runner.errors import ModelNotAvailable
from runner.tasks.re.sut.base import RESystem
from runner.tasks.re.sut.markers import mark, marker_templates
from runner.tasks.re.types import NO_RELATION, REInput


def _fold(entity_type: str) -> str:
    """A nationality is read as its country when argument types are compared: "US" and "UK" are
    typed either way (MR-R3 changes one into the other), and the relations of one hold for the
    other."""
    return "COUNTRY" if entity_type == "NATIONALITY" else entity_type


class _Classifier(RESystem):
    def _labels(self, model: Any) -> dict[int, str]:
        id2label = getattr(model.config, "id2label", None) or {}
        return {int(k): str(v) for k, v in id2label.items()}

    def _describe_model(self) -> dict[str, Any]:
        return {"model": self.model_name, "source": self.source, "device": self.device,
                "dtype": self.dtype, "max_length": self.max_length,
                "num_labels": len(self.id2label)}


class HuggingFaceRE(_Classifier):
    name = "hf"

    def __init__(self, *, model: str, marker_style: str = "typed_markers_punct",
                 markers: Mapping[str, str] | None = None, max_length: int = 256,
                 device: str = "cpu", fp16: bool = False, batch_size: int = 16,
                 argument_types: bool = True, loaded: tuple[Any, Any] | None = None,
                 **kw: Any) -> None:
        super().__init__(batch_size=batch_size, **kw)
        try:
            self.templates = marker_templates(marker_style, markers)
        except ValueError as e:
            raise ModelNotAvailable(f"hf: {e}") from None
        self.marker_style = "custom" if markers else marker_style
        self.model_name, self.max_length = model, max_length
        from runner.models.loading import load_pretrained, place

        if loaded is None:
            from runner.tasks.re import train

            path = model
            if model == train.NAME:        # the embedded classifier: built at first use
                path = str(train.ensure_classifier())
            tok, mdl, src = load_pretrained(path, "RE classifier (sut)",
                                            "AutoModelForSequenceClassification")
            self.source = f"embedded ({path})" if model == train.NAME else src.where
        else:                              # a model built in memory (tests)
            (tok, mdl), self.source = loaded, "memory"
        self.tokenizer = tok
        self.model, self.device, self.dtype = place(mdl, device, fp16)
        self.id2label = self._labels(self.model)
        known = getattr(self.model.config, "relation_argument_types", None) or {}
        self.argument_types = ({lab: {(_fold(h), _fold(t)) for h, t in known[lab]}
                                for lab in known} if argument_types and known else None)
        self._types_seen = {t for pairs in (self.argument_types or {}).values()
                            for pair in pairs for t in pair}

    def describe(self) -> dict[str, Any]:
        types = ("off" if self.argument_types is None else
                 f"the model's (head and tail types of {len(self.argument_types)} labels)")
        return {"backend": "transformers:sequence-classification+entity-markers",
                "marker_style": self.marker_style, "markers": self.templates,
                "argument_types": types, **self._describe_model()}

    def _allowed(self, inputs: Sequence[REInput], n_labels: int) -> Any:
        """Per input, which labels its head and tail types allow (the relations whose training
        examples had such arguments; ``no_relation`` always): a pair with a type the model's
        training never saw is left free."""
        import torch

        allowed = torch.ones(len(inputs), n_labels, dtype=torch.bool)
        for n, i in enumerate(inputs):
            types = (_fold(i.head.type), _fold(i.tail.type))
            if not set(types) <= self._types_seen:
                continue
            for b in range(n_labels):
                label = self.id2label.get(b, str(b))
                pairs = self.argument_types.get(label)
                if label != NO_RELATION and pairs is not None and types not in pairs:
                    allowed[n, b] = False
        return allowed

    def marked(self, inputs: Sequence[REInput]) -> list[str]:
        return [mark(i, self.templates)[0] for i in inputs]

    def _answer(self, inputs: Sequence[REInput]) -> list[Any]:
        import torch

        from runner.models.loading import pad_batch
        from runner.sut.remote import SUTCallError

        # Truncating would cut a marker (the classifier would see one entity or none): an input
        # longer than max_length tokens is an error case, not a silent guess.
        rows = self.tokenizer(self.marked(inputs), truncation=False)["input_ids"]
        fits = [n for n, r in enumerate(rows) if len(r) <= self.max_length]
        out: list[Any] = [SUTCallError(f"hf: the marked input has {len(r)} tokens, more than "
                                       f"max_length {self.max_length}") for r in rows]
        if fits:
            ids, att = pad_batch([rows[n] for n in fits], self.tokenizer.pad_token_id,
                                 self.device)
            with torch.no_grad():
                logits = self.model(input_ids=ids, attention_mask=att).logits.float()
            if self.argument_types is not None:
                allowed = self._allowed([inputs[n] for n in fits], logits.shape[-1])
                logits = logits.masked_fill(~allowed.to(logits.device), float("-inf"))
            probs = logits.softmax(-1)
            for k, n in enumerate(fits):
                b = int(probs[k].argmax())
                out[n] = [self.id2label.get(b, str(b)), float(probs[k, b])]
        return out


class LukeRE(_Classifier):
    name = "luke"

    def __init__(self, *, model: str = "studio-ousia/luke-large-finetuned-tacred",
                 max_length: int = 512, device: str = "cpu", fp16: bool = False,
                 batch_size: int = 8, loaded: tuple[Any, Any] | None = None, **kw: Any) -> None:
        super().__init__(batch_size=batch_size, **kw)
        self.model_name, self.max_length = model, max_length
        from runner.models.loading import place

        if loaded is None:
            tok, mdl, self.source = _load_luke(model)
        else:
            (tok, mdl), self.source = loaded, "memory"
        self.tokenizer = tok
        self.model, self.device, self.dtype = place(mdl, device, fp16)
        self.id2label = self._labels(self.model)

    def describe(self) -> dict[str, Any]:
        return {"backend": "transformers:LukeForEntityPairClassification",
                **self._describe_model()}

    def _answer(self, inputs: Sequence[REInput]) -> list[Any]:
        import torch

        enc = self.tokenizer([i.text for i in inputs],
                             entity_spans=[[(i.head.start, i.head.end), (i.tail.start, i.tail.end)]
                                           for i in inputs],
                             task="entity_pair_classification", padding=True, truncation=True,
                             max_length=self.max_length, return_tensors="pt")
        enc = {k: v.to(self.device) for k, v in enc.items()}
        with torch.no_grad():
            logits = self.model(**enc).logits.float()
        probs = logits.softmax(-1)
        best = probs.argmax(-1).tolist()
        return [[self.id2label.get(b, str(b)), float(probs[k, b])] for k, b in enumerate(best)]


def _load_luke(name: str) -> tuple[Any, Any, str]:
    """LUKE's tokenizer has no fast version, so it cannot go through load_pretrained (which
    needs one for NER offsets); the same lookup and the same exit-4 message otherwise."""
    from runner.models.loading import how_to_provide, hub_offline, locate

    src = locate(name)
    if src is None:
        raise ModelNotAvailable(
            f"RE classifier (sut) model '{name}' is not available here: it is not a folder with a "
            f"config.json and not in the Hugging Face cache"
            + (" (HF_HUB_OFFLINE is set)" if hub_offline() else
               ", and the Hugging Face hub cannot be reached")
            + f".\n  To use it, {how_to_provide(name, 'sut', 'LukeForEntityPairClassification')}"
              .replace("AutoTokenizer", "LukeTokenizer"))
    try:
        import transformers
    except ImportError as e:
        raise ModelNotAvailable("the luke system under test needs transformers and torch: "
                                "pip install 'mtrun[hf]'") from e
    transformers.utils.logging.disable_progress_bar()
    local = src.where != "hub"
    try:
        tok = transformers.LukeTokenizer.from_pretrained(src.path, local_files_only=local)
        mdl = transformers.LukeForEntityPairClassification.from_pretrained(
            src.path, local_files_only=local)
    except (OSError, ValueError, KeyError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ModelNotAvailable(f"RE classifier (sut) model '{name}' could not be loaded from "
                                f"{src.where} ({first}).") from e
    return tok, mdl, src.where
