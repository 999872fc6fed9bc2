"""Reads metrics/eval of a powerzoo result file (run.h5, a baseline or `eval` file) in either layout.

Files with the root attribute `eval_splits` (comma-separated, main split first) keep every split's
columns under metrics/eval/<split>/ and the shared ones (global_step, wall_time, throughput/*)
directly under metrics/eval; older files keep the main split's columns bare. Both are returned in
flat names: the main split's columns bare, another split's as "<split>/<column>".
"""
import h5py


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def eval_splits(f):
    """The eval splits of an open file, main first ([] for files before the per-split layout)."""
    attr = f.attrs.get("eval_splits")
    return [s for s in _text(attr).split(",") if s] if attr is not None else []


def flat_name(splits, rel):
    """Flat name of `rel`, a dataset path under metrics/eval of a file with eval_splits `splits`."""
    if splits and rel.startswith(splits[0] + "/"):
        return rel[len(splits[0]) + 1:]
    return rel


def eval_columns(f):
    """{flat name: numpy array} of every dataset under metrics/eval of an open h5py.File."""
    ev = f.get("metrics/eval")
    cols = {}
    if ev is None:
        return cols
    splits = eval_splits(f)

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            cols[flat_name(splits, name)] = obj[()]

    ev.visititems(visit)
    return cols
