"""Where the studies store their results, how they write and read them, and their command lines.

* :data:`FIGURES_DIR`: the repository's ``figures/`` folder, where every stored study lives;
* :func:`save_json`, :func:`save_npz`, :func:`write_atomically`: write a result so that a reader
  never sees half a file — the bytes go to a temporary file in the same folder, which then
  replaces the old file in one step (``os.replace``); if writing fails the old file is untouched
  and the temporary file removed;
* :func:`stored_file`, :func:`load_json`, :func:`load_npz`: read a stored result back, with a
  FileNotFoundError that names the command making it;
* :func:`study_parser`, :func:`print_progress`, :func:`write_times`: the command-line pieces every
  study repeats (``--outdir``, ``--jobs``, ``--times``; progress on standard error; wall times kept
  in a file of their own so that the stored results hold none).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

#: the repository's ``figures/`` folder: every figure and every stored study
FIGURES_DIR = Path(__file__).resolve().parents[2] / "figures"


def write_atomically(path, write) -> Path:
    """Call ``write(f)`` on a binary file that replaces ``path`` only once ``write`` has returned.

    Parameters
    ----------
    path : str or Path
        The file to (re)place; its folder is made if missing.
    write : callable
        ``write(f)`` writes the whole content to the open binary file ``f``.

    Returns
    -------
    Path
        ``path``. If ``write`` raises, ``path`` keeps its old content, the temporary file is
        removed and the exception propagates.
    """
    if not callable(write):
        raise ValueError(f"write must be a callable write(f), got {type(write).__name__}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private (0600); a result gets an ordinary file's permissions
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def json_text(obj, *, indent: int | None = 1, sort_keys: bool = True, compact: bool = False) -> str:
    """``obj`` as the studies store it: ``json.dumps`` with the given layout and a final newline.

    ``compact`` drops the spaces after separators (``(",", ":")``, used with ``indent=None``).
    """
    separators = (",", ":") if compact else None
    return json.dumps(obj, indent=indent, sort_keys=sort_keys, separators=separators) + "\n"


def save_json(obj, path, *, indent: int | None = 1, sort_keys: bool = True, compact: bool = False) -> Path:
    """Write :func:`json_text` of ``obj`` to ``path`` atomically (:func:`write_atomically`); the path."""
    data = json_text(obj, indent=indent, sort_keys=sort_keys, compact=compact).encode("utf-8")
    return write_atomically(path, lambda f: f.write(data))


def save_npz(arrays: dict, path) -> Path:
    """Write ``arrays`` (name → array) with ``numpy.savez_compressed`` to ``path`` atomically."""
    if not isinstance(arrays, dict):
        raise ValueError(f"arrays must be a dict of name -> array, got {type(arrays).__name__}")
    return write_atomically(path, lambda f: np.savez_compressed(f, **arrays))


def stored_file(name: str, directory=None, command: str | None = None) -> Path:
    """The path of stored result ``name`` in ``directory`` (default :data:`FIGURES_DIR`).

    With ``command``, a missing file raises FileNotFoundError saying which command makes it.
    """
    path = Path(FIGURES_DIR if directory is None else directory) / name
    if command is not None and not path.is_file():
        raise FileNotFoundError(f"{path.name} is missing: run `{command}` to make it")
    return path


def load_json(name: str, directory=None, command: str | None = None):
    """Read stored JSON ``name`` from ``directory`` (default :data:`FIGURES_DIR`), see :func:`stored_file`."""
    return json.loads(stored_file(name, directory, command).read_text())


def load_npz(path) -> dict:
    """Every array of an ``.npz`` file (no pickles), as name → array."""
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def study_parser(description: str, *, outdir: bool = True, jobs: int | None | bool = False,
                 times: str | None = None) -> argparse.ArgumentParser:
    """An ``argparse`` parser with the options every study shares.

    Parameters
    ----------
    description : str
    outdir : bool
        Add ``--outdir`` (default :data:`FIGURES_DIR`).
    jobs : False, None or int
        Add ``--jobs`` unless False; its default (None: one worker process per core).
    times : str, optional
        Add ``--times FILE`` with this help text.
    """
    parser = argparse.ArgumentParser(description=description)
    if outdir:
        parser.add_argument("--outdir", default=str(FIGURES_DIR))
    if jobs is not False:
        parser.add_argument("--jobs", type=int, default=jobs,
                            help="worker processes (default: " + ("one per core" if jobs is None
                                                                  else str(jobs)) + ")")
    if times is not None:
        parser.add_argument("--times", default=None, help=times)
    return parser


def print_progress(done: int, total: int, what: str | None = None) -> None:
    """The studies' progress callback on the command line: ``what (done of total)`` on standard error."""
    if what:
        print(f"{what} ({done} of {total})", file=sys.stderr, flush=True)


def write_times(obj: dict, path, sort_keys: bool = False) -> Path:
    """Write a command's wall times (kept apart from its results) as indented JSON."""
    return save_json(obj, path, indent=1, sort_keys=sort_keys)
