"""Shared fixtures: the `cubist` binary the engine tests drive."""

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def find_binary():
    """The engine binary: $CUBIST_BIN, the repository's release build, or `cubist` on PATH."""
    env = os.environ.get("CUBIST_BIN")
    if env:
        return env
    built = REPO / "target" / "release" / "cubist"
    if built.is_file() and os.access(built, os.X_OK):
        return str(built)
    return shutil.which("cubist")


@pytest.fixture(scope="session")
def cubist_bin():
    """The `cubist` binary; the test is skipped without one, unless
    CUBIST_REQUIRE_BIN is set (CI sets it: there a missing binary fails)."""
    path = find_binary()
    if path is None:
        if os.environ.get("CUBIST_REQUIRE_BIN"):
            pytest.fail("no cubist binary: set CUBIST_BIN or build it with cargo build --release")
        pytest.skip("no cubist binary (set CUBIST_BIN or run cargo build --release)")
    return path
