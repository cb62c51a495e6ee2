"""BibTeX of the works this plugin's datasets come from: one entry (one key) per work.

Kept as data apart from the specs so two datasets of one release (SynthSTEL_feature and
SynthSTEL_register) cite the same entry, and ``steb cite`` prints each work once.
"""

from __future__ import annotations

from steb_core import SHARED_BIBTEX

__all__ = [
    "GYAFC",
    "STYLEDISTANCE",
    "STYLEPTB",
    "XU_SHAKESPEARE",
    "ONESTOP",
    "ASSET",
    "GROENWOLD_AAE",
    "STRAP_CDS",
    "STEB_PAPER",
]

GYAFC = """@inproceedings{rao2018dear,
  author = {Rao, Sudha and Tetreault, Joel},
  title = {Dear Sir or Madam, May {I} Introduce the {GYAFC} Dataset: Corpus, Benchmarks and Metrics for Formality Style Transfer},
  booktitle = {Proceedings of the 2018 Conference of the North American Chapter of the Association for Computational Linguistics: Human Language Technologies (NAACL-HLT)},
  year = {2018},
  pages = {129--140},
  doi = {10.18653/v1/N18-1012},
  url = {https://aclanthology.org/N18-1012},
}"""  # noqa: E501 - BibTeX, one field per line

STYLEDISTANCE = """@inproceedings{patel2025styledistance,
  author = {Patel, Ajay and Zhu, Jiacheng and Qiu, Justin and Horvitz, Zachary and Apidianaki, Marianna and McKeown, Kathleen and Callison-Burch, Chris},
  title = {{StyleDistance}: Stronger Content-Independent Style Embeddings with Synthetic Parallel Examples},
  booktitle = {Proceedings of the 2025 Conference of the Nations of the Americas Chapter of the Association for Computational Linguistics (NAACL)},
  year = {2025},
  url = {https://arxiv.org/abs/2410.12757},
}"""  # noqa: E501 - BibTeX, one field per line

STYLEPTB = """@inproceedings{lyu2021styleptb,
  author = {Lyu, Yiwei and Liang, Paul Pu and Pham, Hai and Hovy, Eduard and P{\\'o}czos, Barnab{\\'a}s and Salakhutdinov, Ruslan and Morency, Louis-Philippe},
  title = {{StylePTB}: A Compositional Benchmark for Fine-grained Controllable Text Style Transfer},
  booktitle = {Proceedings of the 2021 Conference of the North American Chapter of the Association for Computational Linguistics: Human Language Technologies (NAACL-HLT)},
  year = {2021},
  pages = {2116--2138},
  doi = {10.18653/v1/2021.naacl-main.171},
  url = {https://aclanthology.org/2021.naacl-main.171},
}"""  # noqa: E501 - BibTeX, one field per line

XU_SHAKESPEARE = """@inproceedings{xu2012paraphrasing,
  author = {Xu, Wei and Ritter, Alan and Dolan, Bill and Grishman, Ralph and Cherry, Colin},
  title = {Paraphrasing for Style},
  booktitle = {Proceedings of the 24th International Conference on Computational Linguistics (COLING 2012)},
  year = {2012},
  pages = {2899--2914},
  url = {https://aclanthology.org/C12-1177},
}"""

ONESTOP = """@inproceedings{vajjala2018onestopenglish,
  author = {Vajjala, Sowmya and Lu{\\v{c}}i{\\'c}, Ivana},
  title = {{OneStopEnglish} corpus: A new corpus for automatic readability assessment and text simplification},
  booktitle = {Proceedings of the Thirteenth Workshop on Innovative Use of NLP for Building Educational Applications (BEA)},
  year = {2018},
  pages = {297--304},
  doi = {10.18653/v1/W18-0535},
  url = {https://aclanthology.org/W18-0535},
}"""  # noqa: E501 - BibTeX, one field per line

ASSET = """@inproceedings{alvamanchego2020asset,
  author = {Alva-Manchego, Fernando and Martin, Louis and Bordes, Antoine and Scarton, Carolina and Sagot, Beno{\\^i}t and Specia, Lucia},
  title = {{ASSET}: A Dataset for Tuning and Evaluation of Sentence Simplification Models with Multiple Rewriting Transformations},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics (ACL)},
  year = {2020},
  pages = {4668--4679},
  doi = {10.18653/v1/2020.acl-main.424},
  url = {https://aclanthology.org/2020.acl-main.424},
}"""  # noqa: E501 - BibTeX, one field per line

GROENWOLD_AAE = """@inproceedings{groenwold2020investigating,
  author = {Groenwold, Sophie and Ou, Lily and Parekh, Aesha and Honnavalli, Samhita and Levy, Sharon and Mirza, Diba and Wang, William Yang},
  title = {Investigating {African-American} {V}ernacular {E}nglish in Transformer-Based Text Generation},
  booktitle = {Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing (EMNLP)},
  year = {2020},
  pages = {5877--5883},
  doi = {10.18653/v1/2020.emnlp-main.473},
  url = {https://aclanthology.org/2020.emnlp-main.473},
}"""  # noqa: E501 - BibTeX, one field per line

STRAP_CDS = """@inproceedings{krishna2020reformulating,
  author = {Krishna, Kalpesh and Wieting, John and Iyyer, Mohit},
  title = {Reformulating Unsupervised Style Transfer as Paraphrase Generation},
  booktitle = {Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing (EMNLP)},
  year = {2020},
  pages = {737--762},
  doi = {10.18653/v1/2020.emnlp-main.55},
  url = {https://aclanthology.org/2020.emnlp-main.55},
}"""

#: graded formality has no release of its own that steb knows of: it is cited through the STEB paper.
STEB_PAPER = SHARED_BIBTEX["steb2026"]  # the core's entry: one key, one text for the STEB paper
