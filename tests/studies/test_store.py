"""The studies' one store (ensemble_lib.studies.store): round trips, atomic writes, the shared command line.

A writer that fails midway must leave the old file as it was and no temporary file behind: the
stored results are read by the lessons while a study may be rewriting them.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from ensemble_lib.studies import store


def test_json_round_trip_in_the_stored_layouts(tmp_path):
    obj = {"b": [1, 2.5, None], "a": {"y": "é", "x": True}}
    path = store.save_json(obj, tmp_path / "sub" / "r.json")  # the folder is made
    assert store.load_json("r.json", tmp_path / "sub") == obj
    # the layouts the studies have always written (json.dumps, written out by hand here)
    assert path.read_text() == json.dumps(obj, indent=1, sort_keys=True) + "\n"
    store.save_json(obj, path, indent=None, compact=True)
    assert path.read_text() == '{"a":{"x":true,"y":"\\u00e9"},"b":[1,2.5,null]}\n'
    store.save_json(obj, path, sort_keys=False)
    assert list(json.loads(path.read_text())) == ["b", "a"]


def test_npz_round_trip(tmp_path):
    arrays = {"x": np.arange(5.0), "names": np.array(["a", "bc"]), "flags": np.array([True, False])}
    path = store.save_npz(arrays, tmp_path / "a.npz")
    got = store.load_npz(path)
    assert sorted(got) == sorted(arrays)
    for k, v in arrays.items():
        np.testing.assert_array_equal(got[k], v)
        assert got[k].dtype == v.dtype


def test_a_writer_that_raises_midway_leaves_the_old_file_and_no_temporary_file(tmp_path):
    path = tmp_path / "r.json"
    store.save_json({"old": 1}, path)
    before = path.read_bytes()

    def half_then_fail(f):
        f.write(b'{"new": ')
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        store.write_atomically(path, half_then_fail)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_a_failing_first_write_leaves_no_file(tmp_path):
    def fail(f):
        np.savez_compressed(f, x=np.arange(3))
        raise KeyboardInterrupt  # even an interrupt

    with pytest.raises(KeyboardInterrupt):
        store.write_atomically(tmp_path / "a.npz", fail)
    assert list(tmp_path.iterdir()) == []


def test_a_replaced_file_keeps_ordinary_permissions(tmp_path):
    path = store.save_json({}, tmp_path / "r.json")
    assert path.stat().st_mode & 0o777 == 0o644  # not mkstemp's private 0600
    os.chmod(path, 0o664)
    store.save_json({"a": 1}, path)
    assert path.stat().st_mode & 0o777 == 0o664


def test_a_missing_stored_file_names_its_command(tmp_path):
    with pytest.raises(FileNotFoundError, match="r.json is missing: run `python -m x --run`"):
        store.load_json("r.json", tmp_path, command="python -m x --run")
    assert store.stored_file("r.json") == store.FIGURES_DIR / "r.json"
    assert (store.FIGURES_DIR / "boston_table1.json").is_file()  # the repository's figures/


def test_bad_arguments_are_value_errors_naming_them(tmp_path):
    with pytest.raises(ValueError, match="write"):
        store.write_atomically(tmp_path / "a", b"not a callable")
    with pytest.raises(ValueError, match="arrays"):
        store.save_npz([np.arange(3)], tmp_path / "a.npz")


def test_the_shared_command_line_options(tmp_path, capsys):
    parser = store.study_parser("d", jobs=None, times="wall times")
    args = parser.parse_args([])
    assert (args.outdir, args.jobs, args.times) == (str(store.FIGURES_DIR), None, None)
    args = parser.parse_args(["--outdir", str(tmp_path), "--jobs", "3", "--times", "t.json"])
    assert (args.outdir, args.jobs, args.times) == (str(tmp_path), 3, "t.json")
    bare = store.study_parser("d", outdir=False).parse_args([])
    assert not hasattr(bare, "outdir") and not hasattr(bare, "jobs") and not hasattr(bare, "times")
    store.print_progress(2, 5, "split 1")
    store.print_progress(3, 5)  # nothing to say
    assert capsys.readouterr().err == "split 1 (2 of 5)\n"
