"""The corpus guards' wheels: all in the cache (or fetched now), and a missing one offline is a failure that says what to run."""

from __future__ import annotations

import pytest
import test_history_corpus
from corpus_wheels import FETCH_COMMAND, corpora, needed_wheels

from infralens.errors import SourceNotFoundError
from infralens.source.wheels import fetch_wheel


@pytest.mark.slow  # reads every one of some 60 wheels as a zip
def test_every_wheel_the_corpora_read_is_in_the_cache() -> None:
    wanted = needed_wheels()
    assert len(corpora()) > 10 and len(wanted) > 20, (corpora(), wanted)
    missing = []
    for distribution, version in wanted:
        try:
            fetch_wheel(distribution, version)  # no pip run when it is cached; a damaged cached wheel is fetched anew
        except SourceNotFoundError as error:
            missing.append(f"{distribution}=={version} ({error})")
    assert not missing, f"run `{FETCH_COMMAND}` where a registry is reachable; missing: " + "; ".join(missing)


def test_offline_a_missing_wheel_fails_the_guard_naming_the_wheel_and_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(distribution: str, version: str) -> None:
        raise SourceNotFoundError(f"cannot download a wheel of {distribution}=={version}: no registry")

    monkeypatch.setattr(test_history_corpus, "fetch_wheel", offline)
    with pytest.raises(pytest.fail.Exception) as failure:
        test_history_corpus._wheel("diffusers", "0.30.3")
    assert "diffusers==0.30.3" in str(failure.value) and f"`{FETCH_COMMAND}`" in str(failure.value)
