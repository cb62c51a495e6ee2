"""The ``biber`` encoder: a rule-based tagger for Biber's (1988) lexico-grammatical features.

Built on spaCy's Penn Treebank tags (``tag_``), universal POS (``pos_``), lemmas and ClearNLP-style
dependencies (``dep_``) of the English pipeline. 67 features; every count is normalised per 1,000 word
tokens (tokens that are not punctuation and contain a letter or digit), except ``type_token_ratio`` (distinct
lower-cased forms among the first 400 words, as in Biber 1988) and ``mean_word_length`` (characters per
word). An empty text is the all-zero vector. The rules are written from Biber's (1988, appendix II)
descriptions and approximated with what a statistical parser provides; :data:`FEATURES` holds each
feature with its rule, and is the documentation.

The vectors are left unscaled (rates per 1,000 words) so that they are comparable across corpora;
``standardise=True`` applies the scale-free transform ``log1p`` to rates, which keeps frequent features
(nouns, prepositions) from dominating cosine similarity without any batch-dependent statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import StylometryEncoder
from .spacy_pipeline import SpacyPipeline

__all__ = ["FEATURES", "FEATURE_NAMES", "BiberEncoder", "biber_counts"]


def _W(s: str) -> frozenset[str]:
    """A word-set literal: the words of ``s``."""
    return frozenset(s.split())


PLACE_ADVERBS = _W(
    "aboard above abroad across ahead alongside around ashore astern away behind below beneath beside downhill "
    "downstairs downstream east eastward elsewhere far hereabouts indoors inland inshore inside locally near nearby "
    "north nowhere outdoors outside overboard overhead overland overseas south underfoot underground upstairs "
    "upstream west somewhere anywhere everywhere here there"
)
TIME_ADVERBS = _W(
    "afterwards again earlier early eventually formerly immediately initially instantly late lately later "
    "momentarily now nowadays once originally presently previously recently shortly simultaneously soon "
    "subsequently today tomorrow tonight yesterday then already"
)
FIRST_PERSON = _W("i me we us my our mine ours myself ourselves")
SECOND_PERSON = _W("you your yours yourself yourselves thou thee thy thine ye")
THIRD_PERSON = _W("he she they him her them his their hers theirs himself herself themselves")
DEMONSTRATIVES = _W("this that these those")
INDEFINITE_PRONOUNS = _W(
    "anybody anyone anything everybody everyone everything nobody none nothing somebody someone something"
)
NOMINAL_SUFFIXES = ("tion", "tions", "ment", "ments", "ness", "nesses", "ity", "ities")
CONCESSIVE = _W("although though")
CONDITIONAL = _W("if unless")
CONJUNCTS = _W(
    "alternatively consequently conversely e.g. furthermore hence however i.e. instead likewise moreover namely "
    "nevertheless nonetheless notwithstanding otherwise similarly therefore thus viz accordingly"
)
DOWNTONERS = _W(
    "almost barely hardly merely mildly nearly only partially partly practically scarcely slightly somewhat"
)
AMPLIFIERS = _W(
    "absolutely altogether completely enormously entirely extremely fully greatly highly intensely perfectly "
    "strongly thoroughly totally utterly very"
)
EMPHATICS = _W("just really most more definitely certainly surely")
DISCOURSE_PARTICLES = _W("well now anyway anyhow anyways")
POSSIBILITY_MODALS = _W("can may might could")
NECESSITY_MODALS = _W("ought should must")
PREDICTIVE_MODALS = _W("will would shall")
PUBLIC_VERBS = _W(
    "acknowledge admit agree assert claim complain declare deny explain hint insist mention proclaim promise "
    "protest remark reply report say suggest swear write tell announce"
)
PRIVATE_VERBS = _W(
    "anticipate assume believe conclude decide demonstrate determine discover doubt estimate fear feel find forget "
    "guess hear hope imagine imply indicate infer know learn mean notice prove realize realise recognize recognise "
    "remember reveal see show suppose think understand"
)
SUASIVE_VERBS = _W(
    "agree arrange ask beg command decide demand grant insist instruct ordain pledge pronounce propose recommend "
    "request stipulate suggest urge"
)
CONTRACTED = _W("n't 's 're 've 'll 'd 'm")
WH_WORDS = _W(
    "what where when how whether why whoever whomever whichever wherever whenever whatever however who whom which whose"
)

#: (name, rule) for every feature, in vector order
FEATURES: tuple[tuple[str, str], ...] = (
    # A. tense and aspect
    ("past_tense", "verb with tag VBD"),
    ("perfect_aspect", "past participle (VBN) with an auxiliary child whose lemma is 'have'"),
    ("present_tense", "verb with tag VBP or VBZ"),
    # B. place and time adverbials
    ("place_adverbials", "adverb (pos ADV) in the place-adverb list; 'there' only when not existential"),
    ("time_adverbials", "word in the time-adverb list used as an adverb (pos ADV, or dep npadvmod as in 'yesterday')"),
    # C. pronouns and pro-verbs
    ("first_person_pronouns", "I, me, we, us, my, our, mine, ours, myself, ourselves"),
    ("second_person_pronouns", "you, your, yours, yourself, yourselves (and archaic thou, thee, thy, thine, ye)"),
    ("third_person_pronouns", "he, she, they and their object, possessive and reflexive forms (not 'it')"),
    ("pronoun_it", "the pronoun 'it'"),
    ("demonstrative_pronouns", "this/that/these/those used as a pronoun (pos PRON, not a relative 'that' tagged WDT)"),
    ("indefinite_pronouns", "anybody, anyone, anything, everybody, ..., nothing, somebody, someone, something"),
    ("pro_verb_do", "'do' as a main verb (pos VERB, not an auxiliary)"),
    # D. questions
    ("wh_questions", "sentence that starts with a WH-word (tag WDT/WP/WP$/WRB) and ends with '?'"),
    # E. nominal forms
    ("nominalisations", "noun ending in -tion, -ment, -ness, -ity (or their plurals)"),
    ("gerunds", "VBG in a nominal function (dep nsubj, nsubjpass, dobj, pobj, csubj)"),
    ("other_nouns", "noun or proper noun that is not a nominalisation"),
    # F. passives
    ("agentless_passives", "VBN with a passive auxiliary (auxpass) child and no agent ('by') child"),
    ("by_passives", "VBN with a passive auxiliary child and an agent child"),
    # G. stative forms
    ("be_main_verb", "lemma 'be' that is not an auxiliary (dep not aux/auxpass)"),
    ("existential_there", "'there' with dep expl"),
    # H. subordination
    ("that_verb_complements", "'that' marking (dep mark) a clausal complement (ccomp) of a verb"),
    ("that_adj_complements", "'that' marking a clausal complement of an adjective"),
    ("wh_clauses", "WH-word (tag W*) inside a clausal complement (its head or the head's head has dep ccomp/xcomp)"),
    ("infinitives", "'to' with tag TO whose head is a base-form verb (VB)"),
    ("present_participial_clauses", "VBG heading an adverbial clause (dep advcl)"),
    ("past_participial_clauses", "VBN heading an adverbial clause (dep advcl)"),
    ("past_participial_whiz_deletions", "VBN modifying a noun directly (dep acl)"),
    ("present_participial_whiz_deletions", "VBG modifying a noun directly (dep acl)"),
    ("that_relatives_subject", "relative 'that' (tag WDT) as subject (dep nsubj/nsubjpass)"),
    ("that_relatives_object", "relative 'that' (tag WDT) not as subject"),
    ("wh_relatives_subject", "who/which/whom/whose in a relative clause (head dep relcl) as subject"),
    ("wh_relatives_object", "who/which/whom/whose in a relative clause, not subject and not after a preposition"),
    ("wh_relatives_pied_piping", "who/which/whom/whose as object of a preposition (dep pobj)"),
    ("sentence_relatives", "'which' directly after a comma"),
    ("causative_subordinators", "'because'"),
    ("concessive_subordinators", "'although', 'though' as subordinator (dep mark)"),
    ("conditional_subordinators", "'if', 'unless' as subordinator (dep mark)"),
    (
        "other_adverbial_subordinators",
        "other subordinator (dep mark, pos SCONJ) except that/whether/because/concessive/conditional",
    ),
    # I. prepositional phrases, adjectives and adverbs
    ("prepositions", "preposition (dep prep or agent, or pos ADP)"),
    ("attributive_adjectives", "adjective modifying a noun (dep amod)"),
    ("predicative_adjectives", "adjective as complement (dep acomp or oprd)"),
    ("adverbs", "adverb (pos ADV)"),
    # J. lexical specificity
    ("type_token_ratio", "distinct lower-cased words / words among the first 400 words (not per 1,000)"),
    ("mean_word_length", "mean number of characters per word (not per 1,000)"),
    # K. lexical classes
    ("conjuncts", "conjunct adverb from the list (however, therefore, moreover, ...)"),
    ("downtoners", "downtoner from the list (almost, barely, hardly, ...)"),
    ("hedges", "'maybe', 'perhaps', 'possibly', or 'kind of'/'sort of' not preceded by a determiner"),
    ("amplifiers", "amplifier from the list (absolutely, completely, very, ...)"),
    (
        "emphatics",
        "emphatic from the list (just, really, definitely, ...) or 'do' as auxiliary in a non-negated statement",
    ),
    ("discourse_particles", "well, now, anyway, anyhow, anyways as the first word of a sentence"),
    ("demonstratives", "this/that/these/those as determiner (dep det)"),
    # L. modals
    ("possibility_modals", "modal (tag MD) can, may, might, could"),
    ("necessity_modals", "modal ought, should, must"),
    ("predictive_modals", "modal will, would, shall (incl. 'll, 'd)"),
    # M. specialised verb classes
    ("public_verbs", "verb whose lemma is a public verb (say, claim, report, ...)"),
    ("private_verbs", "verb whose lemma is a private verb (think, know, believe, ...)"),
    ("suasive_verbs", "verb whose lemma is a suasive verb (ask, demand, recommend, ...)"),
    ("seem_appear", "verb whose lemma is 'seem' or 'appear'"),
    # N. reduced forms and dispreferred structures
    ("contractions", "clitic token n't, 're, 've, 'll, 'd, 'm, or 's that is not a possessive (tag POS)"),
    ("that_deletion", "clausal complement (ccomp) of a public/private/suasive verb without a 'that' marker"),
    ("stranded_prepositions", "preposition without an object (no pobj child) followed by punctuation"),
    ("split_infinitives", "'to' (tag TO) followed directly by an adverb and then a base-form verb"),
    ("split_auxiliaries", "auxiliary or modal followed by one or more adverbs and then a verb"),
    # O. coordination
    ("phrasal_coordination", "'and' between two words of the same class (NOUN, ADJ, ADV or VERB)"),
    ("independent_clause_coordination", "'and' joining a verb that has its own subject (conj with an nsubj child)"),
    # P. negation
    ("synthetic_negation", "'no' as determiner, 'neither', 'nor'"),
    ("analytic_negation", "'not' or 'n't' (dep neg or lemma not)"),
)
FEATURE_NAMES = tuple(name for name, _ in FEATURES)
_I = {name: i for i, name in enumerate(FEATURE_NAMES)}
_RAW = (_I["type_token_ratio"], _I["mean_word_length"])
_REL_PRONOUNS = _W("who whom which whose")
_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})


def _doc_counts(doc: Any, v: np.ndarray, state: dict[str, Any]) -> None:
    """Add one Doc's feature counts to ``v``; ``state`` carries word counts across pieces of a long text."""
    idx = _I
    for sent in doc.sents:
        toks = [t for t in sent if not t.is_space]
        if toks and toks[-1].text == "?" and toks[0].tag_ in _WH_TAGS:
            v[idx["wh_questions"]] += 1
        if toks and toks[0].lower_ in DISCOURSE_PARTICLES and len(toks) > 1 and toks[1].is_punct:
            v[idx["discourse_particles"]] += 1
    n = len(doc)
    for tok in doc:
        if tok.is_space:
            continue
        lower, tag, pos, dep, lemma = tok.lower_, tok.tag_, tok.pos_, tok.dep_, tok.lemma_.lower()
        if not tok.is_punct and any(c.isalnum() for c in tok.text):
            state["words"] += 1
            state["chars"] += len(tok.text)
            if len(state["first"]) < 400:
                state["first"].append(lower)
        nxt = doc[tok.i + 1] if tok.i + 1 < n else None
        prev = doc[tok.i - 1] if tok.i > 0 else None
        # tense, aspect, passives, participles
        if tag == "VBD":
            v[idx["past_tense"]] += 1
        elif tag in ("VBP", "VBZ"):
            v[idx["present_tense"]] += 1
        elif tag == "VBN":
            child_deps = {c.dep_ for c in tok.children}
            if any(c.dep_ == "aux" and c.lemma_.lower() == "have" for c in tok.children):
                v[idx["perfect_aspect"]] += 1
            if "auxpass" in child_deps:
                v[idx["by_passives" if "agent" in child_deps else "agentless_passives"]] += 1
            if dep == "advcl":
                v[idx["past_participial_clauses"]] += 1
            elif dep == "acl":
                v[idx["past_participial_whiz_deletions"]] += 1
        elif tag == "VBG":
            if dep in ("nsubj", "nsubjpass", "dobj", "pobj", "csubj"):
                v[idx["gerunds"]] += 1
            elif dep == "advcl":
                v[idx["present_participial_clauses"]] += 1
            elif dep == "acl":
                v[idx["present_participial_whiz_deletions"]] += 1
        # verb classes
        if pos == "VERB":
            if lemma == "do":
                v[idx["pro_verb_do"]] += 1
            if lemma in PUBLIC_VERBS:
                v[idx["public_verbs"]] += 1
            if lemma in PRIVATE_VERBS:
                v[idx["private_verbs"]] += 1
            if lemma in SUASIVE_VERBS:
                v[idx["suasive_verbs"]] += 1
            if lemma in ("seem", "appear"):
                v[idx["seem_appear"]] += 1
            if lemma in PUBLIC_VERBS or lemma in PRIVATE_VERBS or lemma in SUASIVE_VERBS:
                for c in tok.children:
                    if c.dep_ == "ccomp" and not any(g.dep_ == "mark" and g.lower_ == "that" for g in c.children):
                        v[idx["that_deletion"]] += 1
        if lemma == "be" and dep not in ("aux", "auxpass"):
            v[idx["be_main_verb"]] += 1
        # adverbials and lexical classes
        if pos == "ADV":
            v[idx["adverbs"]] += 1
            if lower in PLACE_ADVERBS and dep != "expl":
                v[idx["place_adverbials"]] += 1
        if lower in TIME_ADVERBS and (pos == "ADV" or dep == "npadvmod"):
            v[idx["time_adverbials"]] += 1
        if lower in CONJUNCTS and pos in ("ADV", "CCONJ", "SCONJ", "X"):
            v[idx["conjuncts"]] += 1
        if lower in DOWNTONERS and pos == "ADV":
            v[idx["downtoners"]] += 1
        if lower in AMPLIFIERS and pos == "ADV":
            v[idx["amplifiers"]] += 1
        if lower in EMPHATICS and pos == "ADV":
            v[idx["emphatics"]] += 1
        if lower in ("maybe", "perhaps", "possibly"):
            v[idx["hedges"]] += 1
        elif (
            lower in ("kind", "sort")
            and nxt is not None
            and nxt.lower_ == "of"
            and (prev is None or prev.pos_ != "DET")
        ):
            v[idx["hedges"]] += 1
        # pronouns
        if pos == "PRON" or tag in ("PRP", "PRP$"):
            if lower in FIRST_PERSON:
                v[idx["first_person_pronouns"]] += 1
            elif lower in SECOND_PERSON:
                v[idx["second_person_pronouns"]] += 1
            elif lower in THIRD_PERSON:
                v[idx["third_person_pronouns"]] += 1
            elif lower == "it":
                v[idx["pronoun_it"]] += 1
            elif lower in DEMONSTRATIVES and tag != "WDT":
                v[idx["demonstrative_pronouns"]] += 1
            elif lower in INDEFINITE_PRONOUNS:
                v[idx["indefinite_pronouns"]] += 1
        if lower in DEMONSTRATIVES and dep == "det":
            v[idx["demonstratives"]] += 1
        if dep == "expl":
            v[idx["existential_there"]] += 1
        # nouns
        if pos in ("NOUN", "PROPN"):
            if pos == "NOUN" and lower.endswith(NOMINAL_SUFFIXES) and len(lower) > 5:
                v[idx["nominalisations"]] += 1
            else:
                v[idx["other_nouns"]] += 1
        # subordination and relatives
        if lower == "that" and dep == "mark" and tok.head.dep_ == "ccomp":
            governor = tok.head.head
            if governor.pos_ == "ADJ":
                v[idx["that_adj_complements"]] += 1
            elif governor.pos_ in ("VERB", "AUX"):
                v[idx["that_verb_complements"]] += 1
        if lower == "that" and tag == "WDT":
            v[idx["that_relatives_subject" if dep in ("nsubj", "nsubjpass") else "that_relatives_object"]] += 1
        if lower in _REL_PRONOUNS and tag in _WH_TAGS:
            if dep == "pobj" and tok.head.dep_ in ("prep", "agent"):
                v[idx["wh_relatives_pied_piping"]] += 1
            elif tok.head.dep_ == "relcl":
                v[idx["wh_relatives_subject" if dep in ("nsubj", "nsubjpass") else "wh_relatives_object"]] += 1
        if tag in _WH_TAGS and (tok.head.dep_ in ("ccomp", "xcomp") or tok.head.head.dep_ in ("ccomp", "xcomp")):
            v[idx["wh_clauses"]] += 1
        if lower == "which" and prev is not None and prev.text == ",":
            v[idx["sentence_relatives"]] += 1
        if lower == "because":
            v[idx["causative_subordinators"]] += 1
        elif dep == "mark":
            if lower in CONCESSIVE:
                v[idx["concessive_subordinators"]] += 1
            elif lower in CONDITIONAL:
                v[idx["conditional_subordinators"]] += 1
            elif pos == "SCONJ" and lower not in ("that", "whether"):
                v[idx["other_adverbial_subordinators"]] += 1
        if tag == "TO" and dep != "prep":
            if tok.head.tag_ == "VB":
                v[idx["infinitives"]] += 1
            if nxt is not None and nxt.pos_ == "ADV" and tok.i + 2 < n and doc[tok.i + 2].tag_ == "VB":
                v[idx["split_infinitives"]] += 1
        if pos == "AUX" and nxt is not None and nxt.pos_ == "ADV":
            j = tok.i + 1
            while j < n and doc[j].pos_ == "ADV":
                j += 1
            if j < n and doc[j].pos_ in ("VERB", "AUX") and doc[j].lower_ not in ("n't", "not"):
                v[idx["split_auxiliaries"]] += 1
        # prepositions and adjectives
        if dep in ("prep", "agent") or pos == "ADP":
            v[idx["prepositions"]] += 1
            if not any(c.dep_ in ("pobj", "pcomp") for c in tok.children) and nxt is not None and nxt.is_punct:
                v[idx["stranded_prepositions"]] += 1
        if pos == "ADJ":
            if dep == "amod":
                v[idx["attributive_adjectives"]] += 1
            elif dep in ("acomp", "oprd"):
                v[idx["predicative_adjectives"]] += 1
        # modals
        if tag == "MD":
            if lemma in POSSIBILITY_MODALS or lower in POSSIBILITY_MODALS or lower == "ca":
                v[idx["possibility_modals"]] += 1
            elif lemma in NECESSITY_MODALS or lower in NECESSITY_MODALS:
                v[idx["necessity_modals"]] += 1
            elif lemma in PREDICTIVE_MODALS or lower in ("'ll", "'d", "wo"):
                v[idx["predictive_modals"]] += 1
        if lemma == "do" and pos == "AUX" and dep == "aux" and not any(c.dep_ == "neg" for c in tok.head.children):
            sent_end = tok.sent[-1].text if tok.sent is not None else ""
            if sent_end != "?":
                v[idx["emphatics"]] += 1
        # reduced forms
        if lower in CONTRACTED and (lower != "'s" or tag != "POS"):
            v[idx["contractions"]] += 1
        # coordination and negation
        if lower == "and" and dep == "cc":
            if (
                prev is not None
                and nxt is not None
                and prev.pos_ == nxt.pos_
                and prev.pos_ in ("NOUN", "ADJ", "ADV", "VERB")
            ):
                v[idx["phrasal_coordination"]] += 1
            for sib in tok.head.children:
                if sib.dep_ == "conj" and sib.i > tok.i and any(c.dep_ in ("nsubj", "nsubjpass") for c in sib.children):
                    v[idx["independent_clause_coordination"]] += 1
                    break
        if (lower == "no" and dep == "det") or lower in ("neither", "nor"):
            v[idx["synthetic_negation"]] += 1
        if dep == "neg" or lower == "not":
            v[idx["analytic_negation"]] += 1


def biber_counts(doc_groups: Sequence[list[Any]]) -> np.ndarray:
    """Per-1,000-word rates (and the two raw lexical measures) for each group of Docs (one group per text)."""
    out = np.zeros((len(doc_groups), len(FEATURE_NAMES)), dtype=np.float64)
    for row, docs in enumerate(doc_groups):
        state: dict[str, Any] = {"words": 0, "chars": 0, "first": []}
        v = out[row]
        for doc in docs:
            _doc_counts(doc, v, state)
        words = state["words"]
        if words:
            v *= 1000.0 / words
            first = state["first"]
            v[_I["type_token_ratio"]] = len(set(first)) / len(first)
            v[_I["mean_word_length"]] = state["chars"] / words
        else:
            v[:] = 0.0
    return out


class BiberEncoder(StylometryEncoder):
    """Biber's 67 lexico-grammatical features per text (spaCy tagger + parser + lemmatizer)."""

    def __init__(
        self,
        name: str = "biber",
        spacy_model: str | None = None,
        batch_size: int = 128,
        n_process: int = 1,
        standardise: bool = True,
    ) -> None:
        self.name = name
        self.pipeline = SpacyPipeline(
            spacy_model, needs=("pos", "deps", "lemma"), batch_size=batch_size, n_process=n_process
        )
        self.standardise = bool(standardise)
        self.feature_names = list(FEATURE_NAMES)

    def config(self) -> dict[str, Any]:
        return {"spacy": self.pipeline.describe(), "features": len(self.feature_names), "standardise": self.standardise}

    def raw_features(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, len(self.feature_names)))
        return biber_counts(self.pipeline.docs_per_text(texts))

    def encode(self, texts: list[str]) -> np.ndarray:
        raw = self.raw_features(texts)
        return (np.log1p(raw) if self.standardise else raw).astype(np.float32)
