"""The human-judgement sets this plugin registers for ``steb meta-eval --set NAME`` (hook ``register_judgement_sets``).

Each loader is imported only when its set is evaluated, so listing the sets reads no data and imports nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from steb_core import DataSource, JudgementSetSpec, JudgementTable

__all__ = ["JUDGEMENT_SETS"]


def _lazy(module: str, attr: str) -> Callable[[Path], JudgementTable]:
    def load(path: Path) -> JudgementTable:
        table: JudgementTable = getattr(importlib.import_module(f"steb_scorers.judgement_sets.{module}"), attr)(path)
        return table

    load.__name__ = attr
    load.__doc__ = f"steb_scorers.judgement_sets.{module}.{attr}"
    return load


PAULI_REPO = "https://github.com/AmaliePauli/style_transfer_evaluation"
LAI_REPO = "https://github.com/laihuiyuan/eval-formality-transfer"
MIR_REPO = "https://github.com/passeul/style-transfer-model-evaluation"
ZIEGENBEIN_REPO = "https://github.com/timonziegenbein/inappropriateness-mitigation"

JUDGEMENT_SETS = (
    JudgementSetSpec(
        name="pauli2025-constructed",
        description="Pauli et al.'s constructed test set: 500 rewrites in six subsets (sentiment, detoxify, catchy, "
        "polite, persuasive, formal), content and style each rated 1-5 by three crowd workers; no systems",
        loader=_lazy("pauli", "load_pauli_constructed"),
        citation="Amalie Brogaard Pauli, Isabelle Augenstein and Ira Assent. 2025. A Meta-Evaluation of Style and "
        "Attribute Transfer Metrics.",
        license="CC BY 4.0 (the repository's LICENSE)",
        obtain=f"git clone {PAULI_REPO} and pass --data CLONE/data (or `steb data get --judgement-set "
        "pauli2025-constructed`)",
        homepage=PAULI_REPO,
        folder="pauli2025-constructed",
        sources=(
            DataSource(
                "git",
                PAULI_REPO,
                revision="1ec3ad9372da39ef8cdf4052285865442ba07ebb",
                files=("data/syntest_anno*.csv", "LICENSE"),
                licence="CC BY 4.0",
            ),
        ),
        aspects=("content", "style"),
        protocols=("pauli2025",),
        size="500 rows, 6 subsets, 3 annotators",
    ),
    JudgementSetSpec(
        name="lai2022-formality",
        description="Lai et al. (2022)'s formality-transfer human judgements: 80 GYAFC sources, 8 systems + REF, "
        "content/style/fluency rated 0-100 by two annotators per survey; subsets = transfer directions",
        loader=_lazy("lai", "load_lai_judgements"),
        citation="Huiyuan Lai, Jiali Mao, Antonio Toral and Malvina Nissim. 2022. Human Judgement as a Compass to "
        "Navigate Automatic Metrics for Formality Transfer. In Proceedings of HumEval 2022.",
        license="see the repository (GYAFC-derived sources: Yahoo L6 terms)",
        obtain=f"git clone {LAI_REPO} and pass --data CLONE/data/outputs",
        homepage=LAI_REPO,
        folder="formality_human_judgements",
        sources=(
            DataSource(
                "git",
                LAI_REPO,
                revision="ac47a0882926902fa79a59bbe3ba0eb4c97176f5",
                files=("data/outputs/*.human.txt", "data/xformal", "LICENSE"),
                target="formality_human_judgements",
            ),
        ),
        aspects=("content", "style", "fluency"),
        protocols=("lai2022", "wmt17-darr", "pauli2025"),
        size="720 rated outputs (9 systems x 80), 2 annotators per survey",
    ),
    JudgementSetSpec(
        name="mir2019-yelp",
        description="Mir et al. (2019)'s Yelp sentiment-transfer human evaluations: 244 test sources x 12 systems "
        "(ARAE, CAAE, DAR settings), content preservation and style transfer intensity as released (mean of three "
        "workers, 1-5); subsets = transfer directions; no per-annotator ratings, so no agreement figures",
        loader=_lazy("mir", "load_mir"),
        citation="Remi Mir, Bjarke Felbo, Nick Obradovich and Iyad Rahwan. 2019. Evaluating Style Transfer for Text. "
        "In Proceedings of NAACL-HLT 2019.",
        license="no licence file in the repository (ask the authors before redistributing)",
        obtain=f"git clone {MIR_REPO} and pass --data CLONE",
        homepage=MIR_REPO,
        folder="mir2019-yelp",
        sources=(
            DataSource(
                "git",
                MIR_REPO,
                revision="4ca376d34d2aa554c4d4aeb35dc0b6246b983213",
                files=("data/sentiment.test.*", "transfer_model_outputs", "evaluations/human"),
            ),
        ),
        aspects=("content", "style"),
        protocols=("pauli2025",),
        size="2928 rated outputs (12 systems x 244), mean ratings only",
    ),
    JudgementSetSpec(
        name="ziegenbein2024-appropriateness",
        description="Ziegenbein et al. (2024)'s absolute-rating study of rewrites of inappropriate arguments: "
        "similarity (content), appropriateness (style) and fluency rated 1-5 by five of ten annotators per pair; "
        "the authors' filter (users 2-11, pairs rated five times); systems = the rewriting approaches",
        loader=_lazy("ziegenbein", "load_ziegenbein"),
        citation="Timon Ziegenbein, Gabriella Skitalinskaya, Alireza Bayat Makou and Henning Wachsmuth. 2024. "
        "LLM-based Rewriting of Inappropriate Argumentation using Reinforcement Learning from Machine Feedback. "
        "In Proceedings of ACL 2024.",
        license="no licence file in the repository (ask the authors before redistributing)",
        obtain=f"git clone {ZIEGENBEIN_REPO} (with its large files) and pass --data CLONE",
        homepage=ZIEGENBEIN_REPO,
        folder="ziegenbein2024-appropriateness",
        sources=(
            DataSource(
                "git",
                ZIEGENBEIN_REPO,
                revision="8d4061d931937597f907bac4ca33215ef4d7cb3d",
                files=(
                    "src/annotation-interface/appropriateness-study-abs/data/study_pairs.csv",
                    "data/style-transfer/study_results/study_abs_results.csv",
                ),
            ),
        ),
        aspects=("content", "style", "fluency"),
        protocols=("pauli2025",),
        size="rated rewrites of the study (five annotators each)",
    ),
)
