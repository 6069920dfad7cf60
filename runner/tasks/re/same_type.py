"""MR-R1: an argument replaced by another entity of its type (the RE paper's same-type
replacement), fitted to its slot by rules (:mod:`runner.tasks.re.fit`) and, with a language model,
ranked by how well each replacement fits its sentence (:mod:`runner.tasks.re.lm_fit`)."""
from __future__ import annotations

import random
from typing import Any, Sequence

from runner.tasks.re import fit
from runner.tasks.re.places import qualified
from runner.tasks.re.transforms import (EntityPool, REFollowUp, RETransformation, _is_pronoun,
                                        _roles, _word_occurrences, replace_argument,
                                        replaced_ranges)
from runner.tasks.re.types import Argument, REPrediction, RESource
from runner.transforms.base import BatchItem


def named_again(source: RESource, role: str, person_type: str = "PERSON") -> str:
    """The words by which the sentence names the ``role`` argument again, outside the places its
    replacement is written (:func:`runner.tasks.re.fit.named_again`), or ""."""
    arg = getattr(source, role)
    other = source.tail if role == "head" else source.head
    return fit.named_again(source.text, arg, replaced_ranges(source.text, arg, other)[1:],
                           person=arg.type == person_type)


class SameTypeEntity(RETransformation):
    """MR-R1: the head (tail) replaced by another entity of the same type, drawn from the corpus's
    arguments and the suite's gazetteer → the same relation. Pronouns are not replaced (a name
    in place of "his" is not a sentence). With ``fit`` (default) the replacement must fit the
    slot (:mod:`runner.tasks.re.fit`): a person of the original's gender (first name, else the
    sentence's pronouns), an organisation of the kind the source's relation needs (a school
    for per:schools_attended) or else of the original's kind (a company for a company; one of
    unknown kind is not replaced), a date or number by one written the same way; a mention
    with one word is replaced by one word, a longer one by a longer one. An argument the
    sentence names again outside its mention is left (``skip_named_again``,
    :func:`runner.tasks.re.fit.named_again`); a person of a family the sentence names keeps the
    surname (``keep_family_name``, :func:`runner.tasks.re.fit.family_surname`)."""

    name = "same_type_entity"
    mr = "MR-R1"

    def __init__(self, *, pool: EntityPool | None = None, follow_ups: int = 1,
                 arguments: Sequence[str] = ("head", "tail"),
                 gazetteer: dict[str, list[str]] | None = None, fit: bool = True,
                 skip_named_again: bool = True, keep_family_name: bool = True,
                 qualified_cities: bool = True, city_type: str = "CITY",
                 person_type: str = "PERSON", organization_type: str = "ORGANIZATION",
                 shaped_types: Sequence[str] = ("DATE", "NUMBER", "DURATION"),
                 lm: str | None = None, lm_sample: int = 8, lm_max_drop: float | None = 3.0,
                 device: str = "auto",
                 fp16: bool = True, lm_model: Any = None, **kw: Any) -> None:
        super().__init__(follow_ups=follow_ups, arguments=list(arguments),
                         gazetteer=gazetteer or {}, fit=fit, skip_named_again=skip_named_again,
                         **({} if keep_family_name else {"keep_family_name": False}),
                         **({} if qualified_cities else {"qualified_cities": False}),
                         shaped_types=list(shaped_types),
                         lm=lm, lm_sample=lm_sample,
                         **({"lm_max_drop": lm_max_drop} if lm else {}), **kw)
        self.pool = pool or EntityPool(gazetteer)
        self.follow_ups = follow_ups
        self.arguments = _roles(arguments)
        self.fit = fit
        self.skip_named_again = skip_named_again
        self.keep_family_name = keep_family_name
        self.qualified_cities, self.city_type = qualified_cities, city_type
        self.person_type, self.organization_type = person_type, organization_type
        self.shaped_types = frozenset(shaped_types)
        self.lm_sample = lm_sample
        self.lm_max_drop = lm_max_drop
        self.lm = lm_model
        if self.lm is None and lm:
            from runner.models import get_lm

            self.lm = get_lm(lm, kind="causal", device=device, fp16=fp16)

    def models(self) -> list[dict[str, Any]]:
        return [{**self.lm.describe(), "role": "MR-R1 slot fit"}] if self.lm is not None else []

    def _fitting(self, source: RESource, role: str, arg: Argument, relation: str,
                 pool: list[str]) -> tuple[list[str], str | None]:
        """The candidates that fit the slot, and what they had to be."""
        if not self.fit:
            return pool, None
        mention = arg.text_in(source.text)
        one_word = len(mention.split()) == 1
        pool = [c for c in pool
                if (len(c.split()) == 1) == one_word and fit.same_script(mention, c)]
        if arg.type == self.person_type:
            judged = [(c, fit.person_fits(source.text, arg, c)) for c in pool]
        elif arg.type == self.organization_type:
            judged = [(c, fit.org_fits(mention, role, relation, c)) for c in pool]
        elif arg.type in self.shaped_types:
            judged = [(c, fit.shape_fits(mention, c)) for c in pool]
        elif (arg.type == self.city_type and self.qualified_cities
              and qualified(source.text, arg)):
            region = fit.city_region(source.text, arg)
            judged = [(c, fit.city_fits(region, c)) for c in pool]
        else:
            return pool, None
        why = judged[0][1][1] if judged else None
        return [c for c, (ok, _) in judged if ok], why

    def _choices(self, source: RESource, prediction: REPrediction, rng: random.Random
                 ) -> list[tuple[str, Argument, list[str], str | None]]:
        """Per argument replaced: (role, argument, the replacements drawn, what they had to
        be); with an LM, ``lm_sample`` drawn, to be ranked by their fit."""
        out = []
        for role in self.arguments:
            arg = getattr(source, role)
            mention = arg.text_in(source.text)
            if _is_pronoun(source.text, arg):
                continue
            if self.skip_named_again and named_again(source, role, self.person_type):
                continue
            other = (source.tail if role == "head" else source.head).text_in(source.text)
            pool = [c for c in self.pool.candidates(arg.type)
                    if c != mention and not _word_occurrences(source.text, c)
                    and not set(c.split()) & set(other.split())]
            pool, why = self._fitting(source, role, arg, prediction.label, pool)
            k = self.follow_ups if self.lm is None else max(self.follow_ups, self.lm_sample)
            drawn = rng.sample(pool, min(k, len(pool)))
            surname = (fit.family_surname(source.text, arg) if self.fit and self.keep_family_name
                       and arg.type == self.person_type else None)
            if surname:       # a family: the given names change, the surname stays
                drawn = [n for n in (fit.with_surname(c, surname) for c in drawn)
                         if n and n != mention]
                why = f"a person of the {surname} family"
            out.append((role, arg, drawn, why))
        return out

    def generate_batch(self, items: Sequence[BatchItem]) -> list[list[REFollowUp]]:
        """With an LM (``lm``), the replacements drawn for every argument of the batch are
        judged in one call (:func:`runner.tasks.re.lm_fit.context_fit`): each argument keeps
        the ``follow_ups`` that fit its sentence best, the LM's drop in fit from the original
        recorded (``lm_fit_drop``), none whose drop exceeds ``lm_max_drop`` (a sentence that
        names the original again — an alias, a surname, an acronym — fits no other name)."""
        plans = [self._choices(i.source, i.prediction, i.rng) for i in items]
        drops: dict[tuple[int, int], list[float]] = {}
        if self.lm is not None:
            from runner.tasks.re.lm_fit import context_fit

            asks, where = [], []
            for n, (item, plan) in enumerate(zip(items, plans)):
                text = item.source.text
                for m, (_, arg, cands, _) in enumerate(plan):
                    if len(cands) > self.follow_ups:
                        asks.append((text, arg.start, arg.end))
                        asks += [(text[:arg.start] + c + text[arg.end:], arg.start,
                                  arg.start + len(c)) for c in cands]
                        where.append((n, m, len(cands)))
            fits = context_fit(self.lm, asks)
            at = 0
            for n, m, k in where:
                drops[(n, m)] = [fits[at] - f for f in fits[at + 1:at + 1 + k]]
                at += 1 + k
        out = []
        for n, (item, plan) in enumerate(zip(items, plans)):
            made_here = []
            for m, (role, arg, cands, why) in enumerate(plan):
                scored = [(c, None) for c in cands]
                if (n, m) in drops:
                    scored = sorted(zip(cands, drops[(n, m)]), key=lambda x: x[1])
                    if self.lm_max_drop is not None:
                        scored = [x for x in scored if x[1] <= self.lm_max_drop]
                for cand, drop in scored[:self.follow_ups]:
                    made = replace_argument(item.source, role, cand, arg.type)
                    if made:
                        meta = {"fit": why} if why else {}
                        if drop is not None:
                            meta["lm_fit_drop"] = round(drop, 3)
                        made_here.append(self._follow_up(
                            *made, item.prediction.label, argument=role,
                            original=arg.text_in(item.source.text), replacement=cand, **meta))
            out.append([f for f in made_here if f.input != item.source.input])
        return out

    def _generate(self, source, prediction, rng, doc):
        return self.generate_batch([BatchItem(source, prediction, rng, doc)])[0]


