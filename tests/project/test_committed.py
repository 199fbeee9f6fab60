"""The committed-figures check itself: it fails on a changed number, picture or byte, a missing
file or a wrong name, and lets through only what floating point changes from machine to machine."""

import io

import numpy as np
import pytest
from PIL import Image

import _committed
from ensemble_lib.ui.plotting import new_figure, save_figure


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
        _committed.assert_writes_the_committed_files(writer("a,b\n1,4\n"), tmp_path / "changed", ["f.csv"])
    with pytest.raises(AssertionError, match="make figures"):
        _committed.assert_writes_the_committed_files(writer("a,c\n1,2\n"), tmp_path / "text", ["f.csv"])
    with pytest.raises(AssertionError, match="shape"):
        _committed.assert_writes_the_committed_files(writer("a,b\n1,2\n3,4\n"), tmp_path / "rows", ["f.csv"])
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


@pytest.mark.parametrize("made,committed,ok", [
    ("26.695", "26.6951", True),  # a 6-figure cell on a rounding boundary, flipped by 1e-9
    ("26.6951", "26.695", True),
    ("26.6952", "26.695", False),  # two units in the 6th figure
    ("1.5e-05", "1.50001e-05", True),
    ("1.5e-05", "1.50002e-05", False),
    ("0.1", "0.100001", True),
    ("0.1", "0.2", False),  # %g wrote 0.100000 as 0.1: still one unit in the 6th figure
    ("18", "19", False),
    ("0", "1e-12", False),
    ("nan", "0.1", False),
])
def test_a_csv_number_may_move_by_one_unit_in_its_6th_significant_figure_only(tmp_path, made, committed, ok):
    (tmp_path / "m.csv").write_text(f"x,y\n{made},1\n")
    (tmp_path / "c.csv").write_text(f"x,y\n{committed},1\n")
    assert (_committed.committed_difference(tmp_path / "m.csv", tmp_path / "c.csv") is None) == ok


def _figure(tmp_path, name, label, scale=1.0, size=(13, 7)):
    """A figure the size of the largest committed one, a curve and a legend in the smallest font."""
    fig, ax = new_figure(*size)
    x = np.linspace(0, 1, 200)
    ax.plot(x, scale * np.sin(3 * x), label=label)
    ax.legend()
    return save_figure(fig, tmp_path / name)


def test_a_png_passes_a_floating_point_shift_and_fails_a_changed_digit_or_size(tmp_path):
    committed = _figure(tmp_path, "c.png", "KL 0.36888")
    # a curve moved by 1e-8 (a few pixels a level off at most) and a one-level change of one pixel
    assert _committed.committed_difference(_figure(tmp_path, "s.png", "KL 0.36888", 1 + 1e-8), committed) is None
    pixels = np.asarray(Image.open(committed)).copy()
    pixels[5, 5, :3] -= 1
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="png")
    (tmp_path / "p.png").write_bytes(buf.getvalue())
    assert _committed.committed_difference(tmp_path / "p.png", committed) is None
    # the last digit of a number in the legend's 8-point font: the two digits closest in pixels
    # (6 and 8) differ by an RMS of about 0.45, nine times the tolerance
    why = _committed.committed_difference(_figure(tmp_path, "d.png", "KL 0.36886"), committed)
    assert why is not None and "RMS" in why
    why = _committed.committed_difference(_figure(tmp_path, "z.png", "KL 0.36888", size=(13, 6.9)), committed)
    assert why is not None and "size" in why
