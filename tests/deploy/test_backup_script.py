"""deploy/dorf-backup, which deploy/systemd/dorf-backup.service runs every night: a dated backup by
the real ``dorf backup`` of the database in ``$DORF_DB``, the newest 14 kept, and a backup that
restores with its game."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dorf.server.storage.backup import restore
from dorf.testing.net import get, post
from dorf.testing.servers import launch
from repo import ROOT

pytestmark = pytest.mark.slow

SCRIPT = ROOT / "deploy" / "dorf-backup"
DORF = Path(sys.executable).parent / "dorf"


def _backup(folder: Path, db: Path, *more: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DORF_DB": str(db), "DORF_PROGRAM": str(DORF)}
    return subprocess.run(
        ["sh", str(SCRIPT), str(folder), *more], env=env, capture_output=True, text=True, check=False
    )


@pytest.mark.skipif(not DORF.exists(), reason="no dorf in this environment (pip install -e .)")
def test_a_nightly_backup_keeps_the_newest_14_and_restores(tmp_path: Path) -> None:
    db = tmp_path / "dorf.sqlite3"
    with launch(db) as server:
        gid = post(server.url + "/api/games", {"mode": "coop", "seed": 3})["id"]
    folder = tmp_path / "backups"
    folder.mkdir()
    older = [folder / f"dorf-2026-01-{day:02d}T033000.backup" for day in range(1, 16)]
    for path in older:
        path.write_bytes(b"an older night")
    (folder / "notes.txt").write_text("not a backup: left alone", encoding="utf-8")

    done = _backup(folder, db)
    assert done.returncode == 0, done.stderr
    kept = sorted(p.name for p in folder.glob("dorf-*.backup"))
    assert len(kept) == 14 and (folder / "notes.txt").exists()
    assert kept[:13] == [p.name for p in older[2:]]  # the two oldest went
    newest = folder / kept[-1]
    assert newest.name > older[-1].name and newest.stat().st_size > 1000
    assert newest.stat().st_mode & 0o077 == 0  # for its owner only: it holds the database's secrets

    restored = tmp_path / "restored.sqlite3"
    restore(newest, restored)  # as dorf restore does (its command is tested with it)
    with launch(restored) as server:
        assert get(f"{server.url}/api/games/{gid}")["turn"] == 0


@pytest.mark.parametrize("keep", ["0", "00", "-3", "two"])
def test_a_bad_count_to_keep_is_one_line_and_nothing_is_made(tmp_path: Path, keep: str) -> None:
    done = _backup(tmp_path / "backups", tmp_path / "dorf.sqlite3", keep)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "KEEP" in done.stderr, done.stderr
    assert not (tmp_path / "backups").exists()
