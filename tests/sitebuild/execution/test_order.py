"""The order of the pages as a graph of what feeds what: levels, cycles named in a fixed
order, folders listed, files outside the repository ignored, and the feeds kept between
builds."""

from __future__ import annotations

import pytest

from sitebuild.execution.order import (
    CYCLE_ERROR,
    FEEDS_FILE,
    Feeds,
    cycle_message,
    feeders,
    feeds_of,
    find_cycle,
    levels,
    load_feeds,
    save_feeds,
)

PAGES = ["a.md", "b.md", "c.md"]


def test_a_chain_runs_in_three_levels_whatever_the_source_order():
    feeds = feeds_of({"a.md": ["two.txt"], "b.md": ["one.txt"]}, {"c.md": ["one.txt"], "b.md": ["two.txt"]})
    fed_by = feeders(PAGES, feeds)
    assert fed_by == {"a.md": {"b.md"}, "b.md": {"c.md"}, "c.md": frozenset()}
    assert levels(fed_by) == (("c.md",), ("b.md",), ("a.md",))
    assert find_cycle(fed_by) == ()


def test_pages_that_feed_nothing_share_one_level_in_source_order():
    fed_by = feeders(PAGES, feeds_of({"a.md": ["data.csv"]}, {}))
    assert levels(fed_by) == (tuple(PAGES),)


def test_a_cycle_is_named_the_same_way_every_time():
    feeds = feeds_of({"a.md": ["two.txt"], "b.md": ["one.txt"]}, {"a.md": ["one.txt"], "b.md": ["two.txt"]})
    chain = find_cycle(feeders(PAGES, feeds))
    assert chain == ("a.md", "b.md", "a.md")
    assert cycle_message(chain, feeds) == CYCLE_ERROR.format(
        chain="a.md -> b.md -> a.md (a.md writes `one.txt` that b.md reads; b.md writes `two.txt` that a.md reads)")
    assert len(levels(feeders(PAGES, feeds))) == 2  # a cycle still gets an order to run in


def test_a_folder_listed_is_fed_by_a_file_written_in_it_and_a_page_never_feeds_itself():
    feeds = feeds_of({"a.md": ["out"], "b.md": ["b.txt"]}, {"b.md": ["out/new.csv", "b.txt"]})
    assert feeders(PAGES, feeds)["a.md"] == {"b.md"} and feeders(PAGES, feeds)["b.md"] == frozenset()


def test_files_outside_the_repository_never_order_pages():
    feeds = feeds_of({"a.md": ["/home/u/.cache/fonts.json"]}, {"b.md": ["/home/u/.cache/fonts.json"]})
    assert feeds == Feeds() and feeders(PAGES, feeds)["a.md"] == frozenset()


def test_a_step_output_read_by_a_page_is_kept_among_its_reads():
    feeds = feeds_of({"a.md": ["results/x.csv", "data.csv"]}, {}, step_writes=["results/x.csv"])
    assert feeds.reads == {"a.md": {"results/x.csv"}} and feeders(PAGES, feeds)["a.md"] == frozenset()


def test_feeds_round_trip_and_a_damaged_file_reads_as_none(tmp_path):
    feeds = feeds_of({"a.md": ["one.txt"]}, {"b.md": ["one.txt"]})
    save_feeds(tmp_path, feeds)
    assert load_feeds(tmp_path) == feeds
    (tmp_path / FEEDS_FILE).write_text("{not json")
    assert load_feeds(tmp_path) == Feeds()
    with pytest.raises(AttributeError):
        feeds.writes = {}
    with pytest.raises(TypeError):
        feeds.writes["c.md"] = frozenset()
