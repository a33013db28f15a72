"""Text helpers of the keyword leg: pure functions, plain strings in and out."""

from __future__ import annotations

import re

import pytest

from aria_desktop.adapters.storage.text import (
    MAX_QUERY_WORDS,
    content_hash,
    fts_query,
    normalize_content,
    query_terms,
    term_coverage,
)


def test_normalize_content_collapses_whitespace() -> None:
    assert normalize_content("  My dog\tis\n called   Rex ") == "My dog is called Rex"


def test_content_hash_ignores_case_spacing_and_final_punctuation() -> None:
    same = content_hash("My dog is called Rex")
    assert content_hash("  my DOG is   called rex!! ") == same
    assert content_hash("My dog is called Rex.") == same
    assert content_hash("My dog is called Max") != same
    assert content_hash("My dog, is called Rex") != same


def test_fts_query_quotes_content_words_once() -> None:
    assert fts_query("What is my dog's name? Dog!") == '"dog"'
    assert fts_query("Where is the Q3 report kept") == '"q3" OR "report" OR "kept"'


def test_fts_query_of_only_stopwords_is_empty() -> None:
    assert fts_query("what is it called, please tell me") == ""
    assert fts_query("") == ""


@pytest.mark.parametrize(
    "hostile", ['NEAR(" OR *', "content:secret", "^start", "{a b}: c", 'a" OR "b', "x*"]
)
def test_fts_query_can_express_no_operator(hostile: str) -> None:
    query = fts_query(hostile)
    assert query
    assert re.fullmatch(r'"\w+"( OR "\w+")*', query), query


def test_fts_query_searches_at_most_the_word_limit() -> None:
    text = " ".join(f"word{i}" for i in range(MAX_QUERY_WORDS + 10))
    assert fts_query(text).count('"') == 2 * MAX_QUERY_WORDS


def test_query_terms_are_stemmed_content_words() -> None:
    assert query_terms("Which meetings were scheduled?") == {"meeting", "schedul"}


def test_term_coverage_counts_the_share_of_query_words() -> None:
    terms = query_terms("dentist appointment March")
    assert term_coverage(terms, "My dentist appointment is on March 14") == 1.0
    assert term_coverage(terms, "The dentist is nice") == pytest.approx(1 / 3)


def test_term_coverage_counts_at_least_one_word_for_a_keyword_hit() -> None:
    # FTS5's porter stemmer matched a word the light stem here does not see.
    assert term_coverage({"run", "fast"}, "she ran") == pytest.approx(1 / 2)
    assert term_coverage(set(), "anything") == 0.0
