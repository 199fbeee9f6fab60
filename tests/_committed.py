"""A figure or stored table is made once and compared with the copy committed in ``figures/``.

``make figures`` must give the files in the repository, so a change that moves a published figure
or number fails here until the figures are regenerated (``make figures``) and committed. Comparing
with the committed copy also proves the writer is deterministic, so each writer runs once instead
of twice.

Equal bytes pass at once. Otherwise the comparison allows what floating point alone changes from
one machine to another, and nothing a reader could see as a different result:

* the same numbers can differ in their last bits on another CPU (numpy picks its SIMD kernels for
  the CPU it runs on; OpenBLAS splits sums by its thread count), and an optimiser's end point then
  moves by about 1e-8. A CSV cell printed to 6 significant figures that sits on a rounding boundary
  can then flip by one unit in that last digit (``26.6951`` against ``26.695``): a **CSV** passes
  if every text cell is equal and every number is within one unit of its 6th significant figure;
* a **PNG** passes if it has the committed size and its RMS difference from the committed image
  (matplotlib's ``compare_images``, levels 0–255) is at most :data:`PNG_RMS_TOL`. Moving a curve by
  1e-8 changes a few antialiased pixels by one level (RMS about 0.002 on lesson 4's demo); changing
  one digit of a printed number moves the RMS by 0.3 or more even in the largest committed figure
  (``tests/project/test_committed.py`` checks both).
* any other file must be equal byte for byte.

Under ``make test-lowest`` (``ENSEMBLE_TEST_LOWEST=1``) the oldest declared matplotlib rasterises
with its own byte-level differences, so there the writer runs twice and the two runs are compared
with each other, byte for byte (determinism only).
"""

from __future__ import annotations

import csv
import os
from decimal import Decimal, InvalidOperation
from pathlib import Path

FIGURES = Path(__file__).resolve().parents[1] / "figures"
LOWEST = os.environ.get("ENSEMBLE_TEST_LOWEST") == "1"
#: the largest RMS difference (0-255 levels) a regenerated PNG may have from the committed one
PNG_RMS_TOL = 0.05
#: the significant figures the committed CSVs are written with (``%.6g``)
SIGNIFICANT = 6


def _number(cell: str) -> Decimal | None:
    try:
        value = Decimal(cell)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def csv_difference(made: Path, committed: Path) -> str | None:
    """``None`` if the CSVs agree cell by cell (numbers to one unit in the 6th figure)."""
    with open(made, newline="") as f:
        a = list(csv.reader(f))
    with open(committed, newline="") as f:
        b = list(csv.reader(f))
    if [len(r) for r in a] != [len(r) for r in b]:
        return f"the table's shape changed: {len(a)} rows made, {len(b)} committed"
    for i, (ra, rb) in enumerate(zip(a, b)):
        for j, (x, y) in enumerate(zip(ra, rb)):
            if x == y:
                continue
            nx, ny = _number(x), _number(y)
            if nx is None or ny is None:
                return f"row {i}, column {j}: {x!r} made, {y!r} committed"
            # one unit in the 6th significant figure, the precision the CSVs are written with
            # (``%.6g``, which drops trailing zeros, so the printed digits do not show it)
            unit = Decimal(1).scaleb(ny.adjusted() - (SIGNIFICANT - 1)) if ny else Decimal(0)
            if abs(nx - ny) > unit:
                return f"row {i}, column {j}: {x} made, {y} committed (more than {unit} apart)"
    return None


def png_difference(made: Path, committed: Path) -> str | None:
    """``None`` if the PNGs have one size and an RMS difference of at most :data:`PNG_RMS_TOL`."""
    from matplotlib.testing.compare import compare_images
    from PIL import Image

    with Image.open(made) as a, Image.open(committed) as b:
        if a.size != b.size:
            return f"size {a.size} made, {b.size} committed"
    return compare_images(str(committed), str(made), tol=PNG_RMS_TOL)


def committed_difference(made: Path, committed: Path) -> str | None:
    """``None`` if ``made`` is the committed file up to floating point (see the module's docstring)."""
    if made.read_bytes() == committed.read_bytes():
        return None
    if made.suffix == ".csv":
        return csv_difference(made, committed)
    if made.suffix == ".png":
        return png_difference(made, committed)
    return "the bytes differ"


def assert_writes_the_committed_files(write, tmp_path: Path, names: list[str]) -> list[Path]:
    """Call ``write(outdir) -> list[Path]``; check the names, and the files as described above."""
    out = tmp_path / "made"
    out.mkdir(parents=True, exist_ok=True)
    made = write(out)
    assert [p.name for p in made] == names
    if LOWEST:
        again = tmp_path / "again"
        again.mkdir(parents=True, exist_ok=True)
        for p, q in zip(made, write(again)):
            assert p.read_bytes() == q.read_bytes(), f"{p.name}: two runs of its writer differ"
    else:
        for p in made:
            why = committed_difference(p, FIGURES / p.name)
            assert why is None, (f"{p.name} differs from figures/{p.name} ({why}): "
                                 "run `make figures` and commit the result")
    return made
