"""Pinned public releases of this plugin's datasets (``DatasetSpec.sources``), as ``steb data get`` fetches them.

Each git revision is the full commit of the release checked by hand (the loader's files exist at that
commit); ``target`` is the folder under the data root the loader reads (``SynthSTEL`` is shared by
both SynthSTEL datasets). Releases behind a request form (GYAFC) are ``manual`` sources whose
instructions say exactly what to do; licences that need the user's agreement (non-commercial, research
only, none stated) carry ``accept=True``. Files published without a checksum (the STEB authors' Drive
archive, the ACL Anthology attachment) are pinned by steb's first download, and bounded by ``max_bytes`` (issue
47): steb's bound, a generous multiple of the file's size, past which the body is refused; the download's default
deadline is scaled to it.
"""

from __future__ import annotations

from steb_core import DataSource

from . import cds, synthstel
from .line_pairs import AAE_ARCHIVE

__all__ = ["SOURCES", "SHAKESPEARE_PLAYS"]

#: data/align/plays_list of cocoxu/Shakespeare at the pinned commit (17 plays, 21,079 line pairs).
SHAKESPEARE_PLAYS = (
    "antony-and-cleopatra",
    "asyoulikeit",
    "errors",
    "hamlet",
    "henryv",
    "juliuscaesar",
    "lear",
    "macbeth",
    "merchant",
    "msnd",
    "muchado",
    "othello",
    "richardiii",
    "romeojuliet",
    "shrew",
    "tempest",
    "twelfthnight",
)

#: billray110/corpus-of-diverse-styles at the commit that uploaded its one data file, development.csv.
CDS_REVISION = "5edf7fde30a0164e81a115b4ec48365a0493ae35"

_SYNTHSTEL = DataSource(
    kind="hf",
    url=synthstel.HUB_ID,
    revision=synthstel.HUB_REVISION,
    files=("data/train-*.parquet", "data/test-*.parquet"),
    target="SynthSTEL",
    licence="MIT",
)

SOURCES: dict[str, tuple[DataSource, ...]] = {
    "GYAFC": (
        DataSource(
            kind="manual",
            url="https://github.com/raosudha89/GYAFC-corpus",
            target="GYAFC",
            accept=True,
            licence="research only, on request; built from Yahoo! Answers L6 (Yahoo Webscope terms)",
            instructions=(
                "e-mail gyafc.dataset@gmail.com with your affiliation and a short description of how you will use the "
                "data (the request the README of https://github.com/raosudha89/GYAFC-corpus asks for, commit "
                "fe2da425); "
                "GYAFC is built from Yahoo! Answers L6 (Yahoo Webscope), whose terms apply. Unpack what you receive so "
                "that <data-dir>/GYAFC/GYAFC_Corpus/{Entertainment_Music,Family_Relationships}/{train,tune,test}/ "
                "exist."
            ),
        ),
    ),
    "SynthSTEL_feature": (_SYNTHSTEL,),
    "SynthSTEL_register": (_SYNTHSTEL,),
    "StylePTB": (
        DataSource(
            kind="git",
            url="https://github.com/lvyiwei1/StylePTB",
            revision="0c24befeb80098307d7bdff6c5adaf04529fa36f",
            files=("fulldata.h16", "single_transform_checkout.py", "LICENSE"),
            target="StylePTB",
            licence="CC BY 4.0 (StylePTB annotations; the sentences come from the Penn Treebank)",
        ),
    ),
    "parallel_shakespeare": (
        DataSource(
            kind="git",
            url="https://github.com/cocoxu/Shakespeare",
            revision="ced63d473620e0f301ff87fbe14bdd99d5d9b2c4",
            files=("data/align/plays_list",)
            + tuple(
                f"data/align/plays/merged/{p}_{side}.snt.aligned"
                for p in SHAKESPEARE_PLAYS
                for side in ("original", "modern")
            ),
            target="parallel_shakespeare",
            accept=True,
            licence="no licence stated (README_LICENSE asks to cite Xu et al. 2012); the modern side is SparkNotes' "
            "No Fear "
            "Shakespeare: research use",
        ),
    ),
    "OneStopEnglishCorpus": (
        DataSource(
            kind="git",
            url="https://github.com/nishkalavallabhi/OneStopEnglishCorpus",
            revision="37f8db3945cd2f3cc0caafe45674147b224349be",
            files=(
                "Texts-SeparatedByReadingLevel/Ele-Txt",
                "Texts-SeparatedByReadingLevel/Int-Txt",
                "Texts-SeparatedByReadingLevel/Adv-Txt",
                "LICENSE.markdown",
            ),
            target="OneStopEnglishCorpus",
            licence="CC BY-SA 4.0",
        ),
    ),
    "OneStopEnglishCorpus.v2": (
        DataSource(
            kind="git",
            url="https://github.com/nishkalavallabhi/OneStopEnglishCorpus",
            revision="37f8db3945cd2f3cc0caafe45674147b224349be",
            files=(
                "Texts-SeparatedByReadingLevel/Ele-Txt",
                "Texts-SeparatedByReadingLevel/Int-Txt",
                "Texts-SeparatedByReadingLevel/Adv-Txt",
                "LICENSE.markdown",
            ),
            target="OneStopEnglishCorpus",
            licence="CC BY-SA 4.0",
        ),
    ),
    "ASSET": (
        DataSource(
            kind="git",
            url="https://github.com/facebookresearch/asset",
            revision="9d659040d0d8942dbc4cd65cf357563b43fd9ab4",
            files=tuple(
                f"dataset/asset.{split}.{part}"
                for split in ("valid", "test")
                for part in ("orig", *(f"simp.{k}" for k in range(10)))
            )
            + ("LICENSE",),
            target="ASSET",
            licence="CC BY-NC 4.0",
            accept=True,
        ),
    ),
    # the STEB authors publish the graded formality sets (generated with GPT-5-mini) on Google Drive: id and archive
    # name
    # from their download_datasets.sh (github.com/rrivera1849/STEB @43f8a8d6), which unzips it into graded_formality/
    # and
    # drops __MACOSX; no checksum is published, so steb pins it at its first download
    "graded_formality": (
        DataSource(
            kind="gdrive",
            url="1TKtgg-6j2Yd-GTfiq0nnHRPcZC-VpGnu",
            files=("graded_formality_generated_gpt-5-mini.zip",),
            unpack=("graded_formality_generated_gpt-5-mini.zip",),
            target="graded_formality",
            max_bytes=256 << 20,
            accept=True,
            licence="STEB authors' generated paraphrases (GPT-5-mini output; no licence stated): research use",
        ),
    ),
    # Groenwold et al. 2020 supplementary material, as the STEB authors' script fetches it (it reads
    # EMNLP-AAVE-files/aave_samples.txt and sae_samples.txt from the zip, which the reader also does)
    "twitter_aave_sae": (
        DataSource(
            kind="url",
            url=f"https://aclanthology.org/attachments/{AAE_ARCHIVE}",
            target="twitter_aave_sae",
            max_bytes=64 << 20,
            accept=True,
            licence="research use (Twitter content; redistributed by the authors as EMNLP 2020 supplementary material)",
        ),
    ),
    # 5edf7fd "Upload development.csv with git-lfs" is the last commit that touched development.csv (45.3 MB); the two
    # later commits on main only fix README.md's licence metadata (hub commit history, checked by hand)
    "corpus-of-diverse-styles": (
        DataSource(
            kind="hf",
            url=cds.HUB_ID,
            revision=CDS_REVISION,
            files=("development.csv", "README.md"),
            target="corpus-of-diverse-styles",
            accept=True,
            licence="mixed sources (Bible, COHA, lyrics, poetry, Shakespeare, Switchboard, tweets; see the STRAP "
            "release): research use",
        ),
    ),
}
