"""Counts read in the right number."""

from aria_desktop.domain.wording import counted


def test_one_is_singular_and_every_other_count_plural() -> None:
    assert counted(1, "file") == "1 file"
    assert counted(0, "file") == "0 files"
    assert counted(3, "passage") == "3 passages"
    assert counted(2, "memory", "memories") == "2 memories"
