"""What the browser tests that drive the site's search page share: when a search is done, its result links, and a
route that spares the page fetching every result page for its snippet."""

from __future__ import annotations

SEARCH_DONE = "() => /finished|did not match/.test(document.querySelector('#search-results .search-summary')?.textContent || '')"
RESULTS = "els => els.map(e => e.getAttribute('href'))"


def without_summaries(route) -> None:
    """Answer the search page's fetches of result pages (for their snippets) with an empty page; let navigations through.

    The order of the results comes from the search index alone; each snippet costs a fetch and a parse of a whole
    page (lab pages are megabytes of code tables), which made these searches take seconds each. An empty answer is
    one Sphinx's search page handles (no snippet, no error); ``test_snippets_are_prose_not_table_cells`` keeps them."""
    if route.request.resource_type == "fetch":
        route.fulfill(status=200, content_type="text/html", body="")
    else:
        route.continue_()
