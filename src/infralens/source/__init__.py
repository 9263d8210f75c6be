"""Stage 2, index: upstream source files, read statically and indexed with libcst.

Owns where sources come from (:mod:`.distributions`: installed distributions, directories, wheels;
:mod:`.wheels`: fetching a release's wheel; :mod:`.releases`: which releases exist), the statement normaliser (:mod:`.normal_form`), the libcst
index (:mod:`.index`) and its on-disk cache (:mod:`.cache`), and each tree's words kept across runs (:mod:`.words`). Nothing here imports upstream code.
May import: :mod:`infralens.errors`, :mod:`infralens.annotations` (for prefetching what annotations name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .cache import IndexCache as IndexCache, code_fingerprint as code_fingerprint
    from .distributions import (
        UNKNOWN_VERSION as UNKNOWN_VERSION,
        DirectoryTree as DirectoryTree,
        InstalledTree as InstalledTree,
        SourceTree as SourceTree,
        WheelTree as WheelTree,
        canonical_name as canonical_name,
        check_relpath as check_relpath,
        decode_source as decode_source,
        module_name_of as module_name_of,
        open_tree as open_tree,
    )
    from .index import index_source as index_source
    from .models import (
        Definition as Definition,
        DefinitionKind as DefinitionKind,
        ModuleIndex as ModuleIndex,
        SourceFile as SourceFile,
        Statement as Statement,
        StatementKind as StatementKind,
        split_lines as split_lines,
    )
    from .normal_form import display_lines as display_lines, normalize as normalize, strip_header_colon as strip_header_colon
    from .prefetch import SHARED as SHARED
    from .releases import (
        ReleaseList as ReleaseList,
        ReleaseListOrigin as ReleaseListOrigin,
        list_releases as list_releases,
        select_releases as select_releases,
        version_key as version_key,
    )
    from .wheels import (
        cached_wheel as cached_wheel,
        fetch_wheel as fetch_wheel,
        open_against as open_against,
        unreadable_cached_wheel as unreadable_cached_wheel,
        wheel_problem as wheel_problem,
    )
    from .words import (
        INDENTED_DEFINITION_BYTES as INDENTED_DEFINITION_BYTES,
        METHOD_DEF_BYTES as METHOD_DEF_BYTES,
        TOP_DEFINITION_BYTES as TOP_DEFINITION_BYTES,
        WORD_BYTES as WORD_BYTES,
        WordCache as WordCache,
        file_words as file_words,
    )

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "SHARED": "prefetch",
        "Definition": "models",
        "DefinitionKind": "models",
        "DirectoryTree": "distributions",
        "UNKNOWN_VERSION": "distributions",
        "IndexCache": "cache",
        "code_fingerprint": "cache",
        "InstalledTree": "distributions",
        "ModuleIndex": "models",
        "SourceFile": "models",
        "SourceTree": "distributions",
        "Statement": "models",
        "StatementKind": "models",
        "WheelTree": "distributions",
        "WORD_BYTES": "words",
        "METHOD_DEF_BYTES": "words",
        "TOP_DEFINITION_BYTES": "words",
        "INDENTED_DEFINITION_BYTES": "words",
        "WordCache": "words",
        "file_words": "words",
        "canonical_name": "distributions",
        "check_relpath": "distributions",
        "decode_source": "distributions",
        "display_lines": "normal_form",
        "index_source": "index",
        "module_name_of": "distributions",
        "normalize": "normal_form",
        "open_against": "wheels",
        "cached_wheel": "wheels",
        "fetch_wheel": "wheels",
        "unreadable_cached_wheel": "wheels",
        "wheel_problem": "wheels",
        "ReleaseList": "releases",
        "ReleaseListOrigin": "releases",
        "list_releases": "releases",
        "version_key": "releases",
        "select_releases": "releases",
        "open_tree": "distributions",
        "split_lines": "models",
        "strip_header_colon": "normal_form",
    },
)
