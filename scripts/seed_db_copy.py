#!/usr/bin/env python3
"""A copy of a tuning database to seed `tune --strategy seeded` from, without the shapes about to be
tuned: their own winners (and trials) would be their answers, and a check of the seeded strategy
would measure nothing but the copy.

Usage: seed_db_copy.py SEED_DB SHAPES_JSON OUT_DB
OUT_DB is written whole or not at all (a failure leaves no file). Used by scripts/ablation.sh's
seeded row and scripts/strategy-check.sh's SEED_DB.
"""
import json
import os
import shutil
import sqlite3
import sys


def shapes_of(path):
    """(m, n, k) of each entry of a shapes file: [m, n, k] triples or {"m":..,"n":..,"k":..} objects."""
    return [(s["m"], s["n"], s["k"]) if isinstance(s, dict) else tuple(s[:3]) for s in json.load(open(path))]


def main(args):
    if len(args) != 3:
        sys.exit("usage: seed_db_copy.py SEED_DB SHAPES_JSON OUT_DB")
    seed_db, shapes_file, out_db = args
    partial = out_db + ".partial"
    try:
        shapes = shapes_of(shapes_file)
        shutil.copyfile(seed_db, partial)
        db = sqlite3.connect(partial)
        try:
            for table in ("winners", "trials"):
                db.executemany(f"DELETE FROM {table} WHERE m = ? AND n = ? AND k = ?", shapes)
            db.commit()
            # A database in WAL mode keeps the deletions in PARTIAL-wal until checkpointed: into
            # the file itself, the one that is renamed.
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()
        os.replace(partial, out_db)
    except (OSError, ValueError, KeyError, TypeError, IndexError, sqlite3.Error) as e:
        for leftover in (partial, partial + "-wal", partial + "-shm"):
            if os.path.exists(leftover):
                os.remove(leftover)
        sys.exit(f"seed_db_copy: cannot copy {seed_db} without {shapes_file}'s shapes ({e}); "
                 "give a tuning database and a shapes file")


if __name__ == "__main__":
    main(sys.argv[1:])
