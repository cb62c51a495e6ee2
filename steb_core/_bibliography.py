"""BibTeX of the works several plugins cite: one text per key, kept once, here.

``steb cite`` prints each key once; if two plugins spelled one work differently, the entry printed
would depend on plugin order (and a copy pasted into several plugins drifts). So a work cited by more
than one distribution (the STEB paper, STEL, LUAR, LFTK, ...) is defined here and plugins refer to it
by key: ``steb_core.SHARED_BIBTEX["wegmann2021does"]``. ``tests/core/test_citation_keys.py`` checks,
over every installed plugin, that a key has one text and a work one key.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ._specs import STEB_PAPER_BIBTEX

__all__ = ["SHARED_BIBTEX"]

_ENTRIES = {
    "steb2026": STEB_PAPER_BIBTEX,
    "kestemont2020overview": """@inproceedings{kestemont2020overview,
  author = {Kestemont, Mike and Manjavacas, Enrique and Markov, Ilia and Bevendorff, Janek and Wiegmann, Matti and Stamatatos, Efstathios and Potthast, Martin and Stein, Benno},
  title = {{Overview of the Cross-Domain Authorship Verification Task at PAN 2020}},
  booktitle = {Working Notes of CLEF 2020 -- Conference and Labs of the Evaluation Forum},
  series = {CEUR Workshop Proceedings},
  volume = {2696},
  publisher = {CEUR-WS.org},
  year = {2020},
  url = {https://ceur-ws.org/Vol-2696/},
}""",  # noqa: E501 - BibTeX, one field per line
    "lee2023lftk": """@inproceedings{lee2023lftk,
  author = {Lee, Bruce W. and Lee, Jason},
  title = {{LFTK}: Handcrafted Features in Computational Linguistics},
  booktitle = {Proceedings of the 18th Workshop on Innovative Use of NLP for Building Educational Applications (BEA 2023)},
  year = {2023},
  pages = {1--19},
  doi = {10.18653/v1/2023.bea-1.1},
  url = {https://aclanthology.org/2023.bea-1.1},
}""",  # noqa: E501 - BibTeX, one field per line
    "riverasoto2021learning": """@inproceedings{riverasoto2021learning,
  author = {Rivera-Soto, Rafael A. and Miano, Olivia Elizabeth and Ordonez, Juanita and Chen, Barry Y. and Khan, Aleem and Bishop, Marcus and Andrews, Nicholas},
  title = {Learning Universal Authorship Representations},
  booktitle = {Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing},
  year = {2021},
  pages = {913--919},
  doi = {10.18653/v1/2021.emnlp-main.70},
  url = {https://aclanthology.org/2021.emnlp-main.70},
}""",  # noqa: E501 - BibTeX, one field per line
    "wegmann2021does": """@inproceedings{wegmann2021does,
  author = {Wegmann, Anna and Nguyen, Dong},
  title = {Does It Capture {STEL}? {A} Modular, Similarity-based Linguistic Style Evaluation Framework},
  booktitle = {Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing (EMNLP)},
  year = {2021},
  pages = {7109--7130},
  doi = {10.18653/v1/2021.emnlp-main.569},
  url = {https://aclanthology.org/2021.emnlp-main.569},
}""",
    "wegmann2022same": """@inproceedings{wegmann2022same,
  author = {Wegmann, Anna and Schraagen, Marijn and Nguyen, Dong},
  title = {Same Author or Just Same Topic? {T}owards Content-Independent Style Representations},
  booktitle = {Proceedings of the 7th Workshop on Representation Learning for NLP (RepL4NLP)},
  year = {2022},
  pages = {249--268},
  doi = {10.18653/v1/2022.repl4nlp-1.26},
  url = {https://aclanthology.org/2022.repl4nlp-1.26},
}""",
}

#: key -> BibTeX entry, read-only
SHARED_BIBTEX: Mapping[str, str] = MappingProxyType(_ENTRIES)
