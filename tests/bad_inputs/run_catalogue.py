#!/usr/bin/python3
"""Runs the bad-input catalogue (tests/bad_inputs/catalogue.toml) against the powerzoo binary.

Every entry is one command line with the exit code it must end with and fragments its output
must contain (the file, key or line, what was expected and what was found). The runner also holds
every entry to the general rules of bad input, whatever the entry:

  - the exit code is the expected one (never a signal: no crash, no abort);
  - every fragment appears in stderr (or stdout, for the few commands that report there);
  - the output is valid UTF-8 and short (<= MAX_OUTPUT bytes: echoed input is cut, not copied);
  - nothing was written: the command runs in an empty scratch directory (its cwd, HOME and TMPDIR)
    that must still be empty afterwards, and the catalogue's input files and generated fixtures
    are unchanged (sizes, times and, at the end, contents);
  - an exit-2 entry prints nothing on stdout (bad input is refused before any work starts).

Placeholders in the command: {in} this directory, {fx} the generated fixtures, {data} the
bundled data directory, {rep:TEXT:N} TEXT repeated N times; `setup = [[SRC, DST]]` copies a
directory into the scratch directory first (the scratch directory must then stay as it was). Fixtures that should not live in git
(binary bytes, long lines, year-long profiles, checkpoints of a real run and broken copies of
them) are generated first, deterministically, into a temporary directory.

usage: run_catalogue.py POWERZOO [NAME_SUBSTRING ...]   exit 0 if every entry passes
"""
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MAX_OUTPUT = 3000
TIMEOUT = 120


def tree_state(root, with_hash=False):
    """{relative path: (size, mtime_ns[, sha256])} of every file below root."""
    out = {}
    for dirpath, dirnames, names in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = ("dir",)
        for n in names:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            key = (st.st_size, st.st_mtime_ns)
            if with_hash and os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    key += (hashlib.sha256(f.read()).hexdigest(),)
            out[os.path.relpath(p, root)] = key
    return out


def year_profile(path, value, skip=None, every=1):
    """A 30-minute profile from 2025-04-01 to 2026-03-31 (both splits of the bundled data)."""
    import datetime
    t0 = datetime.datetime(2025, 4, 1)
    with open(path, "w") as f:
        f.write("startTime,Actual\n")
        for i in range(366 * 48):
            if (skip and skip[0] <= i < skip[1]) or i % every:
                continue
            t = t0 + datetime.timedelta(minutes=30 * i)
            f.write("%s,%s\n" % (t.strftime("%Y-%m-%dT%H:%M:%S.000Z"), value(i)))


def h5_edit(src, dst, edit):
    import h5py
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        edit(f)


def make_fixtures(binary, fx):
    rng = random.Random(16)
    for name in ("binary.m", "binary.toml", "binary.csv"):
        with open(os.path.join(fx, name), "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(4096)))
    base = open(os.path.join(HERE, "cases", "tiny3.m")).read()
    with open(os.path.join(fx, "long_token.m"), "w") as f:
        f.write(base.replace("\t100\t30\t", "\t" + "x" * 200000 + "\t30\t", 1))
    # One defect each in tiny3 (gen rows at lines 13-14, branch rows 18-20, gencost 23-24).
    variants = {
        "qmin_gt_qmax.m": [("\t100\t-100\t1\t100\t1\t200", "\t-30\t30\t1\t100\t1\t200")],
        "vg_zero.m": [("\t-100\t1\t100\t1\t200", "\t-100\t0\t100\t1\t200")],
        "tap_tiny.m": [("\t0\t0\t1\t-360\t360;", "\t1e-300\t0\t1\t-360\t360;")],
        "angmin_gt_angmax.m": [("\t1\t-360\t360;", "\t1\t30\t-30;")],
        "bus_id_negative.m": [("\t3\t1\t50\t10", "\t-3\t1\t50\t10")],
        "basemva_huge.m": [("mpc.baseMVA = 100;", "mpc.baseMVA = 1e300;")],
        "x_tiny.m": [("\t2\t3\t0.01\t0.1\t", "\t2\t3\t0.01\t1e-300\t")],
        "branch_status_negative.m": [("\t0\t0\t1\t-360\t360;", "\t0\t0\t-1\t-360\t360;")],
        "vm_zero.m": [("\t2\t1\t100\t30\t0\t0\t1\t1\t", "\t2\t1\t100\t30\t0\t0\t1\t0\t")],
        "self_loop.m": [("\t2\t3\t0.01\t0.1\t", "\t2\t2\t0.01\t0.1\t")],
        "transposed_bus.m": [("\t3\t1\t50\t10\t0\t0\t1\t1\t0\t230\t1\t1.1\t0.9;\n];", "\t3\t1\t50\t10\t0\t0\t1\t1\t0\t230\t1\t1.1\t0.9;\n]';")],
        "mpc_reassigned.m": [("mpc.gencost = [", "mpc = struct();\nmpc.gencost = [")],
        "ref_gen_off.m": [("\t100\t1\t200\t0;", "\t100\t0\t200\t0;")],
        "all_gens_off.m": [("\t100\t1\t200\t0;", "\t100\t0\t200\t0;"),
                           ("\t100\t1\t100\t0;", "\t100\t0\t100\t0;")],
        "basemva_matrix.m": [("mpc.baseMVA = 100;", "mpc.baseMVA = [100 200];")],
        "pwl_nonconvex.m": [("\t2\t0\t0\t2\t20\t0;", "\t1\t0\t0\t3\t0\t0\t100\t3000\t200\t4000;"),
                            ("\t2\t0\t0\t2\t30\t0;", "\t1\t0\t0\t3\t0\t0\t50\t1000\t100\t2500;")],
    }
    for name, edits in variants.items():
        text = base
        for old, new in edits:
            if old not in text:
                raise SystemExit("tiny3 variant %s: '%s' not in tiny3.m" % (name, old))
            text = text.replace(old, new, 1)
        with open(os.path.join(fx, name), "w") as f:
            f.write(text)
    with open(os.path.join(fx, "cr_only.m"), "w", newline="") as f:  # classic Mac line ends
        f.write(base.replace("\n", "\r").replace("mpc.baseMVA = 100;", "mpc.baseMVA = 0;"))
    with open(os.path.join(fx, "dup_column.csv"), "w") as f:
        f.write("startTime,Actual,Actual\n2025-04-01T00:00:00.000Z,20000,30000\n")
    os.mkfifo(os.path.join(fx, "fifo.csv"))
    os.mkfifo(os.path.join(fx, "fifo.toml"))
    with open(os.path.join(fx, "foreign.txt"), "w") as f:
        f.write("not a powerzoo output\n")
    with open(os.path.join(fx, "key_twice_quoted.toml"), "w") as f:
        f.write(open(os.path.join(HERE, "specs", "tiny.toml")).read().replace(
            "[ppo]\n", "[ppo]\nlearning_rate = 1e-3\n\"learning_rate\" = 2e-3\n", 1))
    os.makedirs(os.path.join(fx, "foreign_dir"))
    with open(os.path.join(fx, "foreign_dir", "notes.txt"), "w") as f:
        f.write("mine\n")
    with open(os.path.join(fx, "long_line.csv"), "w") as f:
        f.write("startTime,Actual\n2025-04-01T00:00:00.000Z," + "9" * 200000 + "z\n")
    with open(os.path.join(fx, "long_key.toml"), "w") as f:
        f.write("[ppo]\n" + "k" * 100000 + " = 1\n")
    shape = lambda i: 20000 + 5000 * ((i % 48) / 48.0)
    year_profile(os.path.join(fx, "all_zero.csv"), lambda i: 0)
    year_profile(os.path.join(fx, "gap_three_days.csv"), shape, skip=(48 * 100, 48 * 103))
    year_profile(os.path.join(fx, "hourly.csv"), shape, every=2)
    year_profile(os.path.join(fx, "ok_profile.csv"), shape)
    year_profile(os.path.join(fx, "negative_demand.csv"), lambda i: -5 if i == 4000 else shape(i))
    year_profile(os.path.join(fx, "leading_empty.csv"), lambda i: "" if i < 13000 else shape(i))
    with open(os.path.join(fx, "ok_profile.csv")) as src:
        lines = src.read().split("\n")
    for name, row, stamp in (("offset_time.csv", 2000, "+01:00"), ("april_31.csv", 0, None)):
        edited = list(lines)
        t, v = edited[row + 1].split(",")
        edited[row + 1] = (t.replace("Z", stamp) if stamp else t.replace("2025-04-01", "2025-04-31")) + "," + v
        with open(os.path.join(fx, name), "w") as f:
            f.write("\n".join(edited))
    # A finished tiny run and broken copies of its checkpoint.
    run = os.path.join(fx, "run")
    r = subprocess.run([binary, "run", os.path.join(HERE, "specs", "tiny.toml"), "--quiet",
                        "--threads", "1", "--out", run], capture_output=True, text=True,
                       timeout=TIMEOUT)
    if r.returncode != 0:
        raise SystemExit("fixture run failed:\n" + r.stdout + r.stderr)
    ck = os.path.join(run, "ckpt", "step_96.h5")
    data = open(ck, "rb").read()
    with open(os.path.join(fx, "truncated.h5"), "wb") as f:
        f.write(data[: len(data) // 2])
    open(os.path.join(fx, "zero_bytes.h5"), "wb").close()
    with open(os.path.join(fx, "text.h5"), "w") as f:
        f.write("not an HDF5 file\n")
    shutil.copyfile(os.path.join(run, "run.h5"), os.path.join(fx, "run_file.h5"))

    def other_version(f):
        f.attrs["powerzoo_checkpoint"] = 99

    def set_resolved(text):
        def edit(f):
            del f["config/resolved"]
            f["config/resolved"] = text
        return edit

    resolved = None
    import h5py
    with h5py.File(ck, "r") as f:
        resolved = f["config/resolved"][()].decode()
        learner = sorted(k for k in _datasets(f) if k.startswith("learner/"))
    weight = "learner/actor/l0/w"
    if weight not in learner:
        raise SystemExit("fixture checkpoint has no %s (learner layout changed?)" % weight)

    def drop(name):
        def edit(f):
            del f[name]
        return edit

    def reshape(name):
        def edit(f):
            v = f[name][()]
            del f[name]
            f[name] = v[: len(v) // 2]
        return edit

    def nan_fill(name):
        def edit(f):
            v = f[name][()]
            v[0] = float("nan")
            f[name][...] = v
        return edit

    h5_edit(ck, os.path.join(fx, "other_version.h5"), other_version)
    h5_edit(ck, os.path.join(fx, "other_env.h5"),
            set_resolved(resolved.replace('case = "case5"', 'case = "case14"')))
    h5_edit(ck, os.path.join(fx, "bad_resolved.h5"), set_resolved("[ppo\nx = "))
    h5_edit(ck, os.path.join(fx, "huge_reward_scale.h5"),
            set_resolved(resolved.replace("reward_scale = 0.0001", "reward_scale = 1e300")))
    h5_edit(ck, os.path.join(fx, "missing_tensor.h5"), drop(weight))
    h5_edit(ck, os.path.join(fx, "wrong_shape.h5"), reshape(weight))
    h5_edit(ck, os.path.join(fx, "nan_weight.h5"), nan_fill(weight))
    h5_edit(ck, os.path.join(fx, "no_resolved.h5"), drop("config/resolved"))

    def negative_m2(f):
        v = f["learner/normalizer/m2"][()]
        v[0] = -1.0
        f["learner/normalizer/m2"][...] = v
    h5_edit(ck, os.path.join(fx, "negative_m2.h5"), negative_m2)

    def set_value(name, index, value):
        def edit(f):
            v = f[name][()]
            v[index] = value
            f[name][...] = v
        return edit
    h5_edit(ck, os.path.join(fx, "mean_inf.h5"), set_value("learner/normalizer/mean", 0, float("inf")))
    h5_edit(ck, os.path.join(fx, "adam_v_negative.h5"), set_value("learner/adam/v/actor/l0/w", 0, -1.0))
    h5_edit(ck, os.path.join(fx, "step_negative.h5"), set_value("counters/global_step", 0, -48))

    def attr_value(value):
        def edit(f):
            f.attrs["powerzoo_checkpoint"] = value
        return edit
    h5_edit(ck, os.path.join(fx, "format_string.h5"), attr_value("2"))
    h5_edit(ck, os.path.join(fx, "format_float.h5"), attr_value(1.5))

    def retype(name, dtype):
        def edit(f):
            v = f[name][()]
            del f[name]
            f.create_dataset(name, data=v.astype(dtype))
        return edit
    h5_edit(ck, os.path.join(fx, "weight_float64.h5"), retype(weight, "float64"))
    h5_edit(ck, os.path.join(fx, "step_float64.h5"), retype("counters/global_step", "float64"))

    def zero_rngs(f):
        f["vec/rngs"][...] = 0
    h5_edit(ck, os.path.join(fx, "rng_zero.h5"), zero_rngs)
    h5_edit(ck, os.path.join(fx, "weight_int32.h5"), retype(weight, "int32"))

    def counters_dataset(f):
        del f["counters"]
        f["counters"] = [1, 2, 3]
    h5_edit(ck, os.path.join(fx, "counters_dataset.h5"), counters_dataset)

    def data_files_text(text):
        def edit(f):
            del f["data/files"]
            f["data/files"] = text
        return edit
    h5_edit(ck, os.path.join(fx, "data_files_garbage.h5"), data_files_text("garbage"))
    h5_edit(ck, os.path.join(fx, "data_files_deleted.h5"), drop("data/files"))

    # A checkpoint whose scenario file was moved away since the run.
    gone = os.path.join(fx, "moved_away", "mut.csv")

    def scenario_gone(f):
        text = f["data/files"][()]
        text = text.decode() if isinstance(text, bytes) else text
        del f["data/files"]
        f["data/files"] = text + "env.outages\t" + gone + "\t" + "0" * 64 + "\n"
        del f["config/resolved"]
        f["config/resolved"] = resolved.replace('outages = ""', 'outages = "%s"' % gone)
    if 'outages = ""' not in resolved:
        raise SystemExit("fixture checkpoint's spec has no outages key (env keys changed?)")
    h5_edit(ck, os.path.join(fx, "scenario_gone.h5"), scenario_gone)

    def data_files_int(f):
        del f["data/files"]
        f["data/files"] = 7
    h5_edit(ck, os.path.join(fx, "data_files_int.h5"), data_files_int)
    h5_edit(ck, os.path.join(fx, "resolved_empty.h5"), set_resolved(""))
    os.makedirs(os.path.join(fx, "empty_run", "ckpt"))
    # A run directory to resume from with another spec (refused, nothing changed).
    shutil.copytree(run, os.path.join(fx, "run_copy"))
    # Runs whose directory a user changed: the newest checkpoint edited, progress.csv a directory.
    shutil.copytree(run, os.path.join(fx, "run_bad_newest"))
    newest = max((n for n in os.listdir(os.path.join(run, "ckpt")) if n.startswith("step_")),
                 key=lambda n: int(n[5:-3]))
    with h5py.File(os.path.join(fx, "run_bad_newest", "ckpt", newest), "r+") as f:
        f.attrs["powerzoo_checkpoint"] = "1"
    shutil.copytree(run, os.path.join(fx, "run_progress_dir"))
    os.remove(os.path.join(fx, "run_progress_dir", "progress.csv"))
    os.makedirs(os.path.join(fx, "run_progress_dir", "progress.csv"))
    # Runs whose files were replaced by a user's: a foreign progress.csv, a text run.h5.
    shutil.copytree(run, os.path.join(fx, "run_foreign_progress"))
    with open(os.path.join(fx, "run_foreign_progress", "progress.csv"), "w") as f:
        f.write("a,b\n1,2\n")
    shutil.copytree(run, os.path.join(fx, "run_text_h5"))
    with open(os.path.join(fx, "run_text_h5", "run.h5"), "w") as f:
        f.write("my notes\n")
    shutil.copytree(run, os.path.join(fx, "run_other_h5"))
    shutil.copyfile(ck, os.path.join(fx, "run_other_h5", "run.h5"))  # a checkpoint as run.h5
    os.makedirs(os.path.join(fx, "sweep_foreign_trial", "trial_0"))
    with open(os.path.join(fx, "sweep_foreign_trial", "trial_0", "notes.txt"), "w") as f:
        f.write("mine\n")
    # A sweep whose manifest lists other overrides than its trial ids say.
    os.makedirs(os.path.join(fx, "sweep_overrides"))
    with open(os.path.join(HERE, "sweep_bad_manifest", "sweep.json")) as src:
        text = src.read().replace('"../../escaped"', '"trial_0"').replace(
            '"overrides": []', '"overrides": ["seed=9"]')
    with open(os.path.join(fx, "sweep_overrides", "sweep.json"), "w") as f:
        f.write(text)
    # A sweep whose manifest names a status no sweep writes.
    os.makedirs(os.path.join(fx, "sweep_status"))
    with open(os.path.join(HERE, "sweep_bad_manifest", "sweep.json")) as src:
        text = src.read().replace('"../../escaped"', '"trial_0"').replace('"pending"', '"finished"')
    with open(os.path.join(fx, "sweep_status", "sweep.json"), "w") as f:
        f.write(text)


def _datasets(f):
    out = []
    f.visit(lambda name: out.append(name) if hasattr(f[name], "shape") else None)
    return out


def expand(arg, subst):
    arg = re.sub(r"\{rep:([^:}]*):(\d+)\}", lambda m: m.group(1) * int(m.group(2)), arg)
    for k, v in subst.items():
        arg = arg.replace("{" + k + "}", v)
    return arg


def run_entry(binary, e, subst, work):
    """Runs one entry in a fresh scratch directory; returns a list of failure strings."""
    scratch = tempfile.mkdtemp(prefix="scratch_", dir=work)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "POWERZOO_DATA")}
    env.update(HOME=scratch, TMPDIR=scratch)
    env.update(e.get("env", {}))
    argv = [binary] + [expand(a, subst) for a in e["cmd"]]
    for src, dst in e.get("setup", []):  # inputs the entry needs inside its scratch directory
        shutil.copytree(expand(src, subst), os.path.join(scratch, dst))
    before_scratch = tree_state(scratch)
    before_fx = tree_state(subst["fx"])
    try:
        r = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, timeout=TIMEOUT,
                           input=e.get("stdin", "").encode())
    except subprocess.TimeoutExpired:
        return ["timed out after %d s" % TIMEOUT]
    fails = []
    out, err = r.stdout, r.stderr
    for name, stream in (("stdout", out), ("stderr", err)):
        try:
            stream.decode("utf-8")
        except UnicodeDecodeError as x:
            fails.append("%s is not valid UTF-8 (%s)" % (name, x))
    text = (err + b"\n" + out).decode("utf-8", "replace")
    if r.returncode != e["exit"]:
        fails.append("exit code %d, expected %d" % (r.returncode, e["exit"]))
    for frag in e.get("expect", []):
        if expand(frag, subst) not in text:
            fails.append("missing fragment %r" % expand(frag, subst))
    if len(err) > MAX_OUTPUT:
        fails.append("stderr is %d bytes (> %d): echoed input not cut" % (len(err), MAX_OUTPUT))
    if e["exit"] == 2 and out.strip() and not e.get("stdout_ok", False):
        fails.append("exit 2 with output on stdout (work started?)")
    after = tree_state(scratch)
    if after != before_scratch:
        changed = sorted(k for k in set(after) | set(before_scratch)
                         if after.get(k) != before_scratch.get(k))
        fails.append("wrote into the scratch directory: %s" % ", ".join(changed[:5]))
    if tree_state(subst["fx"]) != before_fx:
        fails.append("changed the fixtures directory")
    if fails:
        fails.append("command: %s" % " ".join(a if len(a) < 200 else a[:200] + "..." for a in argv))
        fails.append("stderr: %s" % err.decode("utf-8", "replace")[:1500])
    shutil.rmtree(scratch, ignore_errors=True)
    return fails


def as_validate(e):
    """The `validate` twin of a `run` entry that fails on its spec or overrides (validate must
    catch every bad input that run catches before training), or None."""
    cmd = e["cmd"]
    if not cmd or cmd[0] != "run" or e["exit"] != 2:
        return None
    args, i = [], 1
    while i < len(cmd):
        a = cmd[i]
        if a in ("--quiet", "-q"):
            i += 1
            continue
        if a.startswith("-"):
            return None  # an option of run alone (--out, --threads, --resume, --help, ...)
        args.append(a)
        i += 1
    if not args or not args[0].endswith(".toml"):
        return None
    twin = dict(e)
    twin["name"] = e["name"] + " [validate]"
    twin["cmd"] = ["validate"] + args
    return twin


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    only = sys.argv[2:]
    with open(os.path.join(HERE, "catalogue.toml"), "rb") as f:
        entries = tomllib.load(f)["entry"]
    names = [e["name"] for e in entries]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SystemExit("duplicate entry names: %s" % ", ".join(sorted(dup)))
    work = tempfile.mkdtemp(prefix="pz_bad_inputs_")
    try:
        fx = os.path.join(work, "fixtures")
        os.makedirs(fx)
        make_fixtures(binary, fx)
        subst = {"in": HERE, "fx": fx, "data": os.path.join(REPO, "data")}
        inputs_before = tree_state(HERE, with_hash=True)
        fixtures_before = tree_state(fx, with_hash=True)
        failed = 0
        ran = 0
        twins = [t for t in (as_validate(e) for e in entries) if t]
        for e in entries + twins:
            if only and not any(s in e["name"] for s in only):
                continue
            ran += 1
            fails = run_entry(binary, e, subst, work)
            if fails:
                failed += 1
                print("FAIL %s\n  %s" % (e["name"], "\n  ".join(fails)))
        if tree_state(HERE, with_hash=True) != inputs_before:
            failed += 1
            print("FAIL the catalogue's input files changed")
        if tree_state(fx, with_hash=True) != fixtures_before:
            failed += 1
            print("FAIL the fixtures changed")
        print("%d entries (%d of them `validate` twins of `run` entries), %d passed, %d failed" %
              (ran, len(twins), ran - failed, failed))
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
