"""Reading the tuning databases an experiment under db/results/ left behind, for the scripts that
tabulate or fit them: read-only (the databases are committed, often unpacked from an archive), and a
database that cannot be read is a one-line error naming it."""
import sqlite3
import sys
from pathlib import Path


def fail(message):
    print(f"{Path(sys.argv[0]).stem}: {message}", file=sys.stderr)
    sys.exit(2)


def rows(path, query, parameters=()):
    """Every row QUERY (with PARAMETERS bound to its ?s) returns from the database at PATH, opened
    read-only."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as db:
            return db.execute(query, parameters).fetchall()
    except sqlite3.Error as e:
        fail(f"{path}: cannot read it as a tuning database ({e}); unpack the folder's databases first")
