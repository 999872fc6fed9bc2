#!/usr/bin/python3
"""Fault tests of `powerzoo run` (ctest faults): kill -9, a full disk, and readers of a live run.

  1. kill -9 at random moments (a timer) and at chosen points (POWERZOO_FAULT_INJECT: halfway
     through a checkpoint, a run.h5 copy, a metric row, an evaluation, a resume), then --resume,
     again and again until the run finishes: after every kill every run.h5 and checkpoint opens
     with h5py, and the finished run's metrics and trajectories equal, byte for byte, those of a
     run that was never interrupted.
  2. A file-size limit (ulimit -f, RLIMIT_FSIZE) at several sizes, with trajectories (the run file
     grows first) and without (the checkpoints grow first): exit 1 with a clear message, every
     checkpoint left readable, and --resume without the limit finishes with the uninterrupted
     metrics. As root, where tmpfs can be mounted, the same with a real full disk (ENOSPC) of
     several sizes, freed by remounting it larger.
  3. SIGTERM, SIGINT and SIGUSR1 during a run: exit 3 after a checkpoint of the step reached,
     run.h5 status "interrupted"; --resume finishes ("finished") with the uninterrupted metrics.
     Two SIGTERMs: the run stops at once (killed by the signal), and --resume still finishes with
     the uninterrupted metrics.
  4. h5py and `powerzoo summarize` read run.h5 over and over while the run writes it: no read
     fails, and the run's file equals the uninterrupted one.

Environment: POWERZOO_FAULT_KILLS = number of kills (default 6, what `make test` runs; 20 for
the full test), POWERZOO_FAULT_SEED = seed of the random moments (default 16).

usage: run_faults.py POWERZOO       exit 0 if every check passes; prints the figures
"""
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SPEC = os.path.join(HERE, "fault.toml")
SITES = ["checkpoint", "publish", "run_file", "eval", "resume"]
TIMEOUT = 300


def timing(name):
    return "wall_time" in name or "throughput/" in name


def contents(path):
    """{dataset: bytes} of a run file, timing columns left out."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and not timing(name) and name != "config/resolved":
                out[name] = obj[()].tobytes() if obj.shape != () else bytes(obj[()])
        f.visititems(visit)
    return out


def differences(ref, path):
    got = contents(path)
    names = sorted(set(ref) | set(got))
    return [n for n in names if ref.get(n) != got.get(n)]


def opens(path):
    """'' if `path` opens with h5py and every dataset reads, else the error."""
    try:
        with h5py.File(path, "r") as f:
            f.visititems(lambda n, o: o[()] if isinstance(o, h5py.Dataset) else None)
        return ""
    except Exception as e:  # noqa: BLE001 - any failure to read is the finding
        return "%s: %s" % (type(e).__name__, e)


def has_eval_rows(path):
    try:
        with h5py.File(path, "r") as f:
            return "metrics/eval/global_step" in f and len(f["metrics/eval/global_step"]) > 0
    except Exception:  # noqa: BLE001 - read errors are counted by opens()
        return False


def files_to_check(run_dir):
    out = [os.path.join(run_dir, "run.h5")]
    ck = os.path.join(run_dir, "ckpt")
    if os.path.isdir(ck):
        out += [os.path.join(ck, n) for n in sorted(os.listdir(ck)) if n.endswith(".h5")]
    return [p for p in out if os.path.exists(p)]


def env_with(extra=None):
    env = {k: v for k, v in os.environ.items() if k != "POWERZOO_FAULT_INJECT"}
    env.update(extra or {})
    return env


def run(binary, out, resume=False, extra_args=(), env=None, fsize=None):
    args = [binary, "run", SPEC, "--quiet", "--out", out] + list(extra_args)
    if resume:
        args.append("--resume")
    pre = None
    if fsize is not None:
        pre = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))  # noqa: E731
    return subprocess.Popen(args, env=env_with(env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=pre)


def finish(p, timeout=TIMEOUT):
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


class Checks:
    def __init__(self):
        self.failures = []

    def expect(self, ok, what):
        if not ok:
            self.failures.append(what)
            print("FAIL " + what, flush=True)
        return ok


def reference(binary, work, name, extra_args=()):
    d = os.path.join(work, name)
    t0 = time.monotonic()
    rc, _, err = finish(run(binary, d, extra_args=extra_args))
    if rc != 0:
        raise SystemExit("reference run failed: " + err)
    return contents(os.path.join(d, "run.h5")), time.monotonic() - t0


def kill_tests(binary, work, ref, ref_seconds, n_kills, rng, checks):
    """Kills runs and resumes until n_kills kills happened; returns (kills, {kind: count})."""
    kills, kinds, attempt, tries = 0, {}, 0, 0
    while kills < n_kills:
        d = os.path.join(work, "kill_%d" % attempt)
        attempt += 1
        started, here = False, 0
        while True:
            mode = None
            if here < 3 and kills < n_kills:  # timer and chosen points take turns
                if tries % 2 == 0:
                    mode = ("delay", rng.uniform(0.02, ref_seconds * 1.05))
                else:
                    site = SITES[(tries // 2) % len(SITES)]
                    if site == "resume" and not started:
                        site = "checkpoint"  # a fresh run passes no resume point
                    mode = ("site", site, 1 if site == "resume" else rng.randint(1, 3))
                tries += 1
            env = {"POWERZOO_FAULT_INJECT": "%s:%d" % mode[1:]} if mode and mode[0] == "site" \
                else None
            p = run(binary, d, resume=started, env=env)
            if mode and mode[0] == "delay":
                try:
                    p.wait(timeout=mode[1])
                except subprocess.TimeoutExpired:
                    p.kill()
            rc, _, err = finish(p)
            what = ("resume " if started else "run ") + (
                "killed after %.2f s" % mode[1] if mode and mode[0] == "delay"
                else "killed at %s:%d" % mode[1:] if mode else "to the end")
            started = True
            if rc == -9:
                kills += 1
                here += 1
                kind = mode[1] if mode[0] == "site" else "timer"
                kinds[kind] = kinds.get(kind, 0) + 1
                for f in files_to_check(d):
                    why = opens(f)
                    checks.expect(not why, "%s: %s does not open after the kill: %s" %
                                  (what, f, why))
                continue
            if not checks.expect(rc == 0, "%s: exit %d: %s" % (what, rc, err.strip()[-600:])):
                break
            diff = differences(ref, os.path.join(d, "run.h5"))
            checks.expect(not diff, "%s (after %d kills): differs from the uninterrupted run in "
                          "%s" % (d, here, ", ".join(diff[:5])))
            break
    return kills, kinds


def train_rows(run_dir):
    """Number of train rows in progress.csv (0 while there is none)."""
    try:
        with open(os.path.join(run_dir, "progress.csv")) as f:
            return sum(1 for line in f if line[:1].isdigit() and line.split(",")[2:3] != [""])
    except OSError:
        return 0


def status(path):
    with h5py.File(path, "r") as f:
        return f.attrs.get("status", "?"), f.attrs.get("status_reason", "")


def signal_tests(binary, work, ref_plain, checks):
    """Graceful stops (exit 3, checkpoint, status) and a double signal; returns the count."""
    import signal as sig
    # The double signal needs iterations long enough that the second arrives before the run has
    # checkpointed and exited: a bigger batch and network, with its own uninterrupted reference.
    slow = ["vec.n_envs=64", "learner.total_steps=30720", "ppo.hidden=[256,256]"]
    ref_slow, _ = reference(binary, work, "reference_slow", slow)
    cases = [("SIGTERM", [sig.SIGTERM], [], ref_plain), ("SIGINT", [sig.SIGINT], [], ref_plain),
             ("SIGUSR1", [sig.SIGUSR1], [], ref_plain),
             ("SIGTERM twice", [sig.SIGTERM, sig.SIGTERM], slow, ref_slow)]
    for n, (name, sigs, args, ref) in enumerate(cases):
        for attempt in range(3):
            d = os.path.join(work, "signal_%d" % n)
            shutil.rmtree(d, ignore_errors=True)
            p = run(binary, d, extra_args=args)
            t0 = time.monotonic()
            while (train_rows(d) < 2 + 2 * n and p.poll() is None
                   and time.monotonic() - t0 < TIMEOUT):
                time.sleep(0.005)
            for i, s in enumerate(sigs):
                if i:  # a signal sent while the first is still pending would merge with it
                    time.sleep(0.005)
                p.send_signal(s)
            rc, _, err = finish(p)
            # On a loaded machine the second signal can arrive after the graceful stop of the
            # first has finished (exit 3): the double signal was not exercised, so start again.
            if len(sigs) == 1 or rc != 3:
                break
        run_file = os.path.join(d, "run.h5")
        if len(sigs) == 1:
            checks.expect(rc == 3, "%s: expected exit 3, found %d: %s" % (name, rc, err[-400:]))
            st, why = status(run_file)
            checks.expect(st == "interrupted" and name in why,
                          "%s: run.h5 status %r (%r), expected interrupted" % (name, st, why))
            with h5py.File(run_file, "r") as f:
                last = int(f["metrics/train/global_step"][-1])
            checks.expect(os.path.exists(os.path.join(d, "ckpt", "step_%d.h5" % last)),
                          "%s: no checkpoint of the last step %d" % (name, last))
        else:
            checks.expect(rc == -sigs[0], "%s: expected killed by the signal, found exit %d" %
                          (name, rc))
        rc, _, err = finish(run(binary, d, resume=True, extra_args=args))
        if not checks.expect(rc == 0, "%s: resume exit %d: %s" % (name, rc, err[-400:])):
            continue
        checks.expect(status(run_file)[0] == "finished", "%s: resumed run not finished" % name)
        diff = differences(ref, run_file)
        checks.expect(not diff, "%s + resume: differs from the uninterrupted run in %s" %
                      (name, ", ".join(diff[:5])))
    return len(cases)


def newest_checkpoints_open(d, checks, what):
    for f in files_to_check(d):
        if "/ckpt/" in f:
            why = opens(f)
            checks.expect(not why, "%s: checkpoint %s unreadable: %s" % (what, f, why))
    ck = os.path.join(d, "ckpt")
    left = [n for n in os.listdir(ck) if ".tmp." in n] if os.path.isdir(ck) else []
    checks.expect(not left, "%s: temporary files left in ckpt/: %s" % (what, left))


def disk_full_ulimit(binary, work, ref, extra, label, sizes, checks):
    points = 0
    for size in sizes:
        d = os.path.join(work, "fsize_%s_%d" % (label, size))
        rc, _, err = finish(run(binary, d, extra_args=extra, fsize=size))
        what = "ulimit -f %d bytes (%s)" % (size, label)
        if rc == 0:
            continue  # the limit was above what this run writes
        points += 1
        checks.expect(rc == 1, "%s: exit %d, expected 1: %s" % (what, rc, err[-400:]))
        checks.expect("File too large" in err and "run failed: " in err,
                      "%s: unclear message: %s" % (what, err.strip()[-400:]))
        newest_checkpoints_open(d, checks, what)
        rc, _, err = finish(run(binary, d, resume=True, extra_args=extra))
        if checks.expect(rc == 0, "%s: resume after the limit: exit %d: %s" % (what, rc, err)):
            diff = differences(ref, os.path.join(d, "run.h5"))
            checks.expect(not diff, "%s: resumed run differs in %s" % (what, ", ".join(diff[:5])))
    return points


def can_mount(mnt):
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt],
                       capture_output=True)
    if r.returncode != 0:
        return False
    subprocess.run(["umount", mnt], capture_output=True)
    return True


def disk_full_tmpfs(binary, work, ref, sizes_kb, checks):
    mnt = os.path.join(work, "mnt")
    os.makedirs(mnt)
    if not can_mount(mnt):
        print("note: not root or tmpfs cannot be mounted here: the ENOSPC part is skipped")
        return 0
    points = 0
    for kb in sizes_kb:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk" % kb, "tmpfs", mnt], check=True)
        try:
            d = os.path.join(mnt, "run")
            rc, _, err = finish(run(binary, d))
            what = "full disk at %d KiB" % kb
            if rc == 0:
                continue
            points += 1
            checks.expect(rc == 1, "%s: exit %d, expected 1: %s" % (what, rc, err[-400:]))
            checks.expect("No space left on device" in err and "run failed: " in err,
                          "%s: unclear message: %s" % (what, err.strip()[-400:]))
            newest_checkpoints_open(d, checks, what)
            subprocess.run(["mount", "-o", "remount,size=65536k", mnt], check=True)  # space freed
            rc, _, err = finish(run(binary, d, resume=True))
            if checks.expect(rc == 0, "%s: resume after freeing space: exit %d: %s" %
                             (what, rc, err)):
                diff = differences(ref, os.path.join(d, "run.h5"))
                checks.expect(not diff, "%s: resumed run differs in %s" %
                              (what, ", ".join(diff[:5])))
        finally:
            subprocess.run(["umount", mnt], capture_output=True)
    return points


def live_reads(binary, work, ref, checks):
    d = os.path.join(work, "live")
    p = run(binary, d)
    reads, summaries, errors = 0, 0, []
    path = os.path.join(d, "run.h5")
    while p.poll() is None:
        if os.path.exists(path):
            why = opens(path)
            reads += 1
            if why:
                errors.append(why)
            if reads % 10 == 1:
                # Before the first evaluation is published there is nothing to summarize (and
                # summarize says so); after it, the live run is summarized (it is still running,
                # so only with --include-failed).
                evaluated = not why and has_eval_rows(path)
                r = subprocess.run([binary, "summarize", d, "--include-failed",
                                    "--csv", os.path.join(work, "s.csv")],
                                   capture_output=True, text=True)
                summaries += 1
                ok = r.returncode == 0 and "1 result files" in r.stdout if evaluated else \
                    r.returncode in (0, 2) and ("no evaluation yet" in r.stderr or
                                                r.returncode == 0)
                if not ok:
                    errors.append("summarize: exit %d: %s" % (r.returncode, r.stderr[-300:]))
    rc, _, err = finish(p)
    checks.expect(rc == 0, "live run: exit %d: %s" % (rc, err))
    checks.expect(not errors, "live reads failed %d of %d times: %s" %
                  (len(errors), reads, errors[:3]))
    diff = differences(ref, path)
    checks.expect(not diff, "live run differs from the unobserved one in %s" % diff[:5])
    return reads, summaries


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    n_kills = int(os.environ.get("POWERZOO_FAULT_KILLS", "6"))
    rng = random.Random(int(os.environ.get("POWERZOO_FAULT_SEED", "16")))
    checks = Checks()
    work = tempfile.mkdtemp(prefix="pz_faults_")
    t0 = time.monotonic()
    try:
        ref, ref_seconds = reference(binary, work, "reference")
        kills, kinds = kill_tests(binary, work, ref, ref_seconds, n_kills, rng, checks)
        signals = signal_tests(binary, work, ref, checks)
        # Sizes between the first checkpoint and the finished files of each variant.
        ref_none, _ = reference(binary, work, "reference_none", ["output.trajectories=none"])
        ulimit = disk_full_ulimit(binary, work, ref, [], "trajectories",
                                  [40000, 120000, 250000, 400000, 600000], checks)
        ulimit += disk_full_ulimit(binary, work, ref_none, ["output.trajectories=none"], "none",
                                   [60000, 120000, 180000, 240000], checks)
        enospc = disk_full_tmpfs(binary, work, ref, [300, 700, 1100, 1500], checks)
        reads, summaries = live_reads(binary, work, ref, checks)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("kills: %d (%s); graceful stops: %d; disk-full points: %d file-size limits, %d full tmpfs; live reads: %d "
          "h5py opens and %d summarize runs of a run.h5 being written; %.0f s" %
          (kills, ", ".join("%s %d" % kv for kv in sorted(kinds.items())), signals, ulimit, enospc,
           reads, summaries, time.monotonic() - t0))
    print("%d failed" % len(checks.failures))
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
