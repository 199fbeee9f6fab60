"""The committed-figures check itself: it fails on a changed byte, a missing file or a wrong name."""

import pytest

import _committed


def test_a_changed_missing_or_renamed_file_fails(tmp_path, monkeypatch):
    committed = tmp_path / "figures"
    committed.mkdir()
    (committed / "f.csv").write_text("a,b\n1,2\n")
    monkeypatch.setattr(_committed, "FIGURES", committed)
    monkeypatch.setattr(_committed, "LOWEST", False)

    def writer(text, name="f.csv"):
        def write(out):
            (out / name).write_text(text)
            return [out / name]
        return write

    _committed.assert_writes_the_committed_files(writer("a,b\n1,2\n"), tmp_path / "ok", ["f.csv"])
    with pytest.raises(AssertionError, match="make figures"):
        _committed.assert_writes_the_committed_files(writer("a,b\n1,3\n"), tmp_path / "changed", ["f.csv"])
    with pytest.raises(FileNotFoundError):
        _committed.assert_writes_the_committed_files(writer("x", "g.csv"), tmp_path / "new", ["g.csv"])
    with pytest.raises(AssertionError):
        _committed.assert_writes_the_committed_files(writer("a,b\n1,2\n"), tmp_path / "name", ["h.csv"])


def test_under_the_lowest_versions_two_runs_are_compared_instead(tmp_path, monkeypatch):
    monkeypatch.setattr(_committed, "FIGURES", tmp_path / "nothing-committed")
    monkeypatch.setattr(_committed, "LOWEST", True)
    runs = iter(["1\n", "2\n"])

    def write(out):
        (out / "f.csv").write_text(next(runs))
        return [out / "f.csv"]

    with pytest.raises(AssertionError, match="two runs"):
        _committed.assert_writes_the_committed_files(write, tmp_path, ["f.csv"])
