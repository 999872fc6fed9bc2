#!/usr/bin/python3
"""ctest tensorboard_events: a quickstart run with [log] tensorboard = true writes an events file
that TensorBoard's own Event proto decodes, holding every scalar of run.h5.

The events file is read frame by frame (TFRecord: length, masked CRC-32C of the length, data,
masked CRC-32C of the data; the CRCs are checked with an independent table-driven CRC-32C here)
and each record is parsed with Debian's python3-protobuf as tensorboard.Event, declared below
with the field numbers of TensorBoard's tensorboard/compat/proto/event.proto and summary.proto
(Event: wall_time 1, step 2, file_version 3, summary 5; Summary.value 1; Value: tag 1,
simple_value 2). Every /metrics/train column (but global_step, wall_time) must appear as
train/<name> and every /metrics/eval column as eval/<name>, at each row's global step, equal
to run.h5's value rounded to float32. Then the run is resumed from its middle checkpoint
(--resume after deleting the later ones): the events file is rewritten and again equals run.h5.

usage: tests/tensorboard_events_test.py BINARY
"""
import glob
import os
import struct
import subprocess
import sys
import tempfile

import h5py
import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def event_class():
    f = descriptor_pb2.FileDescriptorProto(name="tb_event_subset.proto", package="tensorboard",
                                           syntax="proto3")
    T = descriptor_pb2.FieldDescriptorProto
    value = descriptor_pb2.DescriptorProto(name="Value")
    value.field.add(name="tag", number=1, type=T.TYPE_STRING, label=T.LABEL_OPTIONAL)
    value.field.add(name="simple_value", number=2, type=T.TYPE_FLOAT, label=T.LABEL_OPTIONAL)
    summary = f.message_type.add(name="Summary")
    summary.nested_type.append(value)
    summary.field.add(name="value", number=1, type=T.TYPE_MESSAGE, label=T.LABEL_REPEATED,
                      type_name=".tensorboard.Summary.Value")
    event = f.message_type.add(name="Event")
    event.field.add(name="wall_time", number=1, type=T.TYPE_DOUBLE, label=T.LABEL_OPTIONAL)
    event.field.add(name="step", number=2, type=T.TYPE_INT64, label=T.LABEL_OPTIONAL)
    event.field.add(name="file_version", number=3, type=T.TYPE_STRING, label=T.LABEL_OPTIONAL)
    event.field.add(name="summary", number=5, type=T.TYPE_MESSAGE, label=T.LABEL_OPTIONAL,
                    type_name=".tensorboard.Summary")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    desc = pool.FindMessageTypeByName("tensorboard.Event")
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


def crc32c(data):
    """Bitwise CRC-32C (reflected polynomial 0x82F63B78), independent of the C++ Boost.CRC."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def read_events(path, Event):
    raw = open(path, "rb").read()
    at, events = 0, []
    while at < len(raw):
        (n,) = struct.unpack_from("<Q", raw, at)
        (len_crc,) = struct.unpack_from("<I", raw, at + 8)
        data = raw[at + 12: at + 12 + n]
        (data_crc,) = struct.unpack_from("<I", raw, at + 12 + n)
        assert len_crc == masked(raw[at: at + 8]), f"{path}: bad length CRC at byte {at}"
        if len(events) < 3:  # the bitwise CRC is slow in Python: the first records suffice
            assert data_crc == masked(data), f"{path}: bad data CRC at byte {at}"
        ev = Event()
        ev.ParseFromString(data)
        events.append(ev)
        at += 12 + n + 4
    return events


def compare(run_dir, Event):
    files = glob.glob(os.path.join(run_dir, "events.out.tfevents.*"))
    assert len(files) == 1, f"expected one events file in {run_dir}, found {files}"
    events = read_events(files[0], Event)
    assert events[0].file_version == "brain.Event:2", events[0]
    got = {}
    for ev in events[1:]:
        for v in ev.summary.value:
            got[(v.tag, ev.step)] = v.simple_value
    want = {}
    with h5py.File(os.path.join(run_dir, "run.h5"), "r") as h:
        for group in ("train", "eval"):
            g = h["metrics/" + group]
            names = []
            g.visit(lambda n: names.append(n) if isinstance(g[n], h5py.Dataset) else None)
            steps = np.asarray(g["global_step"])
            for n in names:
                if n in ("global_step", "wall_time"):
                    continue
                for s, x in zip(steps, np.asarray(g[n])):
                    want[(f"{group}/{n}", int(s))] = float(np.float32(x))
    missing = [k for k in want if k not in got]
    extra = [k for k in got if k not in want]
    assert not missing, f"{len(missing)} run.h5 scalars not in the events, e.g. {missing[:5]}"
    assert not extra, f"{len(extra)} event scalars not in run.h5, e.g. {extra[:5]}"
    bad = [k for k in want if not (got[k] == want[k] or (np.isnan(got[k]) and np.isnan(want[k])))]
    assert not bad, f"{len(bad)} scalars differ, e.g. {[(k, got[k], want[k]) for k in bad[:5]]}"
    return len(want)


def main():
    binary = os.path.abspath(sys.argv[1])
    Event = event_class()
    with tempfile.TemporaryDirectory() as tmp:
        run = os.path.join(tmp, "run")
        args = [binary, "run", os.path.join(ROOT, "experiments", "quickstart.toml"), "--out", run,
                "--quiet", "--threads", "1", "log.tensorboard=true", "learner.total_steps=6144",
                "eval.every_steps=1536", "eval.n_episodes=2",
                "output.checkpoint_every_steps=3072"]
        p = subprocess.run(args, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        n = compare(run, Event)
        print(f"ok   {n} scalars of run.h5 equal the events file's")
        ckpts = sorted(glob.glob(os.path.join(run, "ckpt", "step_*.h5")),
                       key=lambda c: int(os.path.basename(c)[5:-3]))
        assert len(ckpts) >= 3, ckpts
        mid = len(ckpts) // 2  # resume from a checkpoint with rows before and after it
        for c in ckpts[mid + 1:]:
            os.remove(c)
        ckpts = ckpts[mid:]
        p = subprocess.run(args + ["--resume"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        n = compare(run, Event)
        print(f"ok   after a resume from {os.path.basename(ckpts[0])}: {n} scalars equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
