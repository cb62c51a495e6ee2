"""Readers of the labelled corpora's official releases, one module per corpus family.

Most releases are a table with a text and a label column (:mod:`.tables` wraps steb-core's generic
loader); the others (folders of files, XML, CLDF, parallel verses, SQLite) get a reader each. Every
reader returns all usable records (the class-budget rule is applied by the caller,
:func:`steb_datasets_style.common.labelled_bundle`) and an info dict recording the files read and
anything dropped. This package re-exports every reader so ``from . import readers as R`` keeps working.
"""

from .base import make_record, release_files
from .bible import (
    BIBLE_VERSIONS,
    CARLSON_VERSIONS,
    SCROLLMAPPER_VERSIONS,
    aligned_records,
    bible_carlson,
    bible_scrollmapper,
    bible_versions,
    normalised_verse,
)
from .blog import (
    BLOG_AGE_GROUPS,
    BLOG_HUB_ID,
    BLOG_HUB_REVISION,
    blog,
    blog_age_group,
    blog_hub,
    blog_posts,
    blog_xml_dir,
    hub_builder_rows,
    hub_split_files,
)
from .ceeces import ceeces, ceeces_cocoa, ceeces_xml, twenty_year_period
from .detection import DETECTRL_FILES, GEDE_LABELS, MAGE_DOMAINS, detectrl, detectrl_files, gede, m4, mage_generator
from .dialect import ENDIVE_DIALECTS, endive, ewave
from .learner import fce
from .pastel import PASTEL_ATTRIBUTES, PASTEL_LEVELS, pastel, pastel_level_files, pastel_sentence_files
from .register import enron_spam, hate_speech_forum, politeness
from .tables import first_match, release_root, table
from .web import CORE_SUB_REGISTERS, XGENRE_HUB_ID, core, english_rows, masc, paragraphs, x_genre

__all__ = [
    "make_record",
    "release_files",
    "BIBLE_VERSIONS",
    "CARLSON_VERSIONS",
    "SCROLLMAPPER_VERSIONS",
    "aligned_records",
    "bible_carlson",
    "bible_scrollmapper",
    "bible_versions",
    "normalised_verse",
    "BLOG_AGE_GROUPS",
    "BLOG_HUB_ID",
    "BLOG_HUB_REVISION",
    "blog",
    "blog_age_group",
    "blog_hub",
    "blog_posts",
    "blog_xml_dir",
    "hub_builder_rows",
    "hub_split_files",
    "ceeces",
    "ceeces_cocoa",
    "ceeces_xml",
    "twenty_year_period",
    "DETECTRL_FILES",
    "GEDE_LABELS",
    "MAGE_DOMAINS",
    "detectrl",
    "detectrl_files",
    "gede",
    "m4",
    "mage_generator",
    "ENDIVE_DIALECTS",
    "endive",
    "ewave",
    "fce",
    "PASTEL_ATTRIBUTES",
    "PASTEL_LEVELS",
    "pastel",
    "pastel_level_files",
    "pastel_sentence_files",
    "enron_spam",
    "hate_speech_forum",
    "politeness",
    "first_match",
    "release_root",
    "table",
    "CORE_SUB_REGISTERS",
    "XGENRE_HUB_ID",
    "core",
    "english_rows",
    "masc",
    "paragraphs",
    "x_genre",
]
