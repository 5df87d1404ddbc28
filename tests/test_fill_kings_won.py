"""``scripts/fill_kings_won.py`` resumes from its answers file: a line torn by a kill is cut
off, so its deal is asked again and the next answer starts a line of its own."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fill_kings_won.py"
SPEC = importlib.util.spec_from_file_location("fill_kings_won", SCRIPT)
fill = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(fill)


def test_a_torn_last_answer_is_cut_off_and_asked_again(tmp_path):
    answers = tmp_path / "kings.tsv"
    whole = "17\tTrue\tsolved\t120\t0.0100\t0.0200\n29\tNone\tunknown\t300000\t1.5000\t1.6000\n"
    answers.write_text(whole + "31\tFal")
    assert fill.read_answers(answers) == {17: (True, "solved", 120, 0.01, 0.02),
                                          29: (None, "unknown", 300000, 1.5, 1.6)}
    assert answers.read_text() == whole


def test_whole_answers_are_read_as_they_are(tmp_path):
    answers = tmp_path / "kings.tsv"
    answers.write_text("5\tFalse\tunsolvable\t42\t0.0010\t0.0010\n")
    assert fill.read_answers(answers) == {5: (False, "unsolvable", 42, 0.001, 0.001)}
    assert fill.read_answers(tmp_path / "none.tsv") == {}
