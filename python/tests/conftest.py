"""Shared helpers of the Python module's tests: the powerzoo binary (POWERZOO_BIN, set by ctest;
build/powerzoo otherwise) and the repository root."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def powerzoo_bin():
    return os.environ.get("POWERZOO_BIN", str(ROOT / "build" / "powerzoo"))


def run_cli(*args, check=True):
    """Runs the powerzoo binary from the repository root; returns the CompletedProcess."""
    p = subprocess.run([powerzoo_bin(), *map(str, args)], cwd=ROOT, capture_output=True,
                       text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"powerzoo {' '.join(map(str, args))} exited {p.returncode}:\n"
                             f"{p.stdout}\n{p.stderr}")
    return p


def spec_path(tmp_path, spec):
    """A spec file: `spec` itself when it names a .toml file, else a one-line spec of that task
    (`[env] task = "<spec>"`) written under tmp_path."""
    if spec.endswith(".toml"):
        return spec
    p = tmp_path / f"{spec}.toml"
    p.write_text(f'[env]\ntask = "{spec}"\n')
    return str(p)


@pytest.fixture
def root():
    return ROOT


@pytest.fixture(autouse=True)
def _cwd_root(monkeypatch):
    # Spec files name data relative to the repository root, as the CLI is run.
    monkeypatch.chdir(ROOT)
