"""Rules: every field is checked, every preset and every stored rule set reads back as written,
and a bad rule set is one clean error wherever it comes from."""

from __future__ import annotations

import json
import shutil

import pytest

from fcsurvey.rules import MAX_CELLS, PRESETS, VARIANTS, Rules, RulesError, preset

from conftest import FREECELL, RESULTS, cli

MANIFESTS = sorted(RESULTS.glob("*/_fcsurvey.json"))
EXPORTS = sorted(RESULTS.glob("lists/*.json"))


@pytest.mark.parametrize("field, value, message", [
    ("variant", "bogus", "variant must be one of freecell, bakers-game, "),
    ("variant", "FreeCell", "variant must be one of "),
    ("variant", None, "variant must be one of "),
    ("cells", True, "cells must be a whole number from 0 to 10, got True"),
    ("cells", "4", "cells must be a whole number from 0 to 10, got '4'"),
    ("cells", 4.0, "cells must be a whole number from 0 to 10, got 4.0"),
    ("cells", -1, "cells must be a whole number from 0 to 10, got -1"),
    ("cells", MAX_CELLS + 1, "cells must be a whole number from 0 to 10, got 11"),
    ("columns", 0, "columns must be a whole number from 1 to 10, got 0"),
    ("columns", False, "columns must be a whole number from 1 to 10, got False"),
    ("build", "colour", "build must be one of alternate, suit, any; got 'colour'"),
    ("empty_fill", "queens", "empty_fill must be one of any, kings, none; got 'queens'"),
    ("sequence", 2, "sequence must be one of limited, unlimited, single; got 2"),
    ("foundation_return", 1, "foundation_return must be true or false, got 1"),
    ("foundation_return", "yes", "foundation_return must be true or false, got 'yes'"),
    ("foundation_return", None, "foundation_return must be true or false, got None"),
    ("layout", "klondike", "layout must be one of freecell, forecell, eight-off, seahaven; got 'klondike'"),
])
def test_a_bad_field_is_refused_saying_what_it_must_be(field, value, message):
    with pytest.raises(RulesError) as refused:
        Rules(**{field: value})
    assert str(refused.value).startswith(message)
    with pytest.raises(RulesError):
        FREECELL.replace(**{field: value})
    with pytest.raises(RulesError):
        Rules.from_dict({**FREECELL.to_dict(), field: value})


def test_the_variant_error_lists_every_variant():
    with pytest.raises(RulesError) as refused:
        Rules(variant="bogus")
    assert str(refused.value) == f"variant must be one of {', '.join(VARIANTS)}; got 'bogus'"


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_reads_back_from_its_json(name):
    rules = PRESETS[name]
    assert Rules.from_dict(json.loads(rules.to_json())) == rules


def test_a_variant_name_stays_with_changed_fields():
    changed = preset("bakers-game", cells=2, foundation_return=True)
    assert (changed.variant, changed.build, changed.cells, changed.foundation_return) == \
        ("bakers-game", "suit", 2, True)


def test_from_dict_wants_every_field_and_no_other():
    fields = FREECELL.to_dict()
    del fields["layout"]
    with pytest.raises(RulesError, match="^missing rule fields: layout$"):
        Rules.from_dict(fields)
    with pytest.raises(RulesError, match="^unknown rule fields: colour; the fields are variant, cells, "):
        Rules.from_dict({**FREECELL.to_dict(), "colour": "red"})
    with pytest.raises(RulesError, match="^rules must be a mapping of rule fields, got 'freecell'$"):
        Rules.from_dict("freecell")


def test_replace_refuses_a_field_that_does_not_exist():
    with pytest.raises(RulesError, match="^unknown rule fields: cels; "):
        FREECELL.replace(cels=3)


def test_an_unknown_preset_is_refused():
    with pytest.raises(RulesError, match="^unknown variant 'bogus'; choose from freecell, bakers-game, "):
        preset("bogus")


@pytest.mark.skipif(not MANIFESTS, reason=f"no datasets in {RESULTS}")
@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda path: path.parent.name)
def test_every_shipped_dataset_names_freecell(manifest):
    """Standard FreeCell, but for the foundation-return datasets (issue 27), which say so
    in their names."""
    expected = FREECELL.replace(foundation_return="foundation-return" in manifest.parent.name)
    assert Rules.from_dict(json.loads(manifest.read_text())["rules"]) == expected


@pytest.mark.skipif(not EXPORTS, reason=f"no exported lists in {RESULTS}")
@pytest.mark.parametrize("export", EXPORTS, ids=lambda path: path.name)
def test_every_shipped_export_names_freecell(export):
    records = json.loads(export.read_text())
    assert records and {Rules.from_dict(record["rules"]) for record in records} == {FREECELL}


@pytest.mark.parametrize("args, message", [
    (["deal", "1", "--cells", "11"], "Error: cells must be a whole number from 0 to 10, got 11\n"),
    (["deal", "1", "--cells", "-1"], "Error: cells must be a whole number from 0 to 10, got -1\n"),
    (["deal", "1", "--variant", "eight-off", "--cells", "4"], "Error: layout eight-off needs at least 7 free cells\n"),
])
def test_bad_rule_flags_are_one_error_line(capsys, args, message):
    assert cli(capsys, *args) == (2, "", message)


@pytest.mark.skipif(not MANIFESTS, reason=f"no datasets in {RESULTS}")
def test_a_dataset_whose_rules_say_cells_true_is_refused_not_read_as_one_cell(capsys, tmp_path):
    dataset = tmp_path / "d"
    dataset.mkdir()
    source = RESULTS / "freecell_1-32000" / MANIFESTS[0].name
    manifest = json.loads(source.read_text())
    manifest["rules"]["cells"] = True
    (dataset / source.name).write_text(json.dumps(manifest))
    shutil.copy(min(source.parent.glob("*.parquet")), dataset)
    code, out, err = cli(capsys, "summary", dataset)
    assert (code, out) == (2, "")
    assert err.startswith("Error: ") and err.count("\n") == 1
    assert "cells must be a whole number from 0 to 10, got True" in err
