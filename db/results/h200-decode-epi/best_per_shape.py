#!/usr/bin/env python3
"""The best N verified trials per shape in each of several tuning databases, beside each database's
cuBLASLt-autotune time for that shape, with the configuration keys that tell the explored kernels
apart; for reading an exploration (README.md here) next to the committed plan timed in the same run.
Ratios are within one database (its own library baseline), so databases tuned one after the other
compare by ratio, not by time.
    python3 best_per_shape.py N db1.sqlite [db2.sqlite ...]"""
import json
import sqlite3
import sys

KEYS = ["BM", "BN", "STAGES", "CONSUMERS", "CLUSTER_M", "CLUSTER_N", "EPI_TMA", "KB_PAIR", "SWAP_AB", "SPLIT_K",
        "SPLIT_DSMEM", "WG_KSPLIT", "PERSISTENT", "ACC_CHAINS"]


def read(db):
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        trials = c.execute("select t.m, t.n, t.k, t.time_us, k.config_json from trials t join kernels k on "
                           "k.id = t.kernel_id where t.status = 'ok' and t.time_us is not null").fetchall()
        library = dict(((m, n, k), us) for m, n, k, us in c.execute(
            "select m, n, k, time_us from baselines where provider = 'cublaslt_autotune'"))
    return trials, library


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit("usage: best_per_shape.py N db.sqlite [db.sqlite ...]")
    best_n, dbs = int(sys.argv[1]), sys.argv[2:]
    by_shape = {}
    for db in dbs:
        trials, library = read(db)
        name = db.rsplit("/", 1)[-1]
        for m, n, k, us, config in trials:
            by_shape.setdefault((m, n, k), {}).setdefault(name, [library.get((m, n, k)), []])[1].append((us, config))
    for shape in sorted(by_shape):
        print(f"\n{shape[0]}x{shape[1]}x{shape[2]}")
        for name, (library_us, rows) in by_shape[shape].items():
            print(f"  {name}: cuBLASLt-autotune {library_us:.2f} us")
            for us, config in sorted(rows)[:best_n]:
                params = json.loads(config).get("params", {})
                keys = " ".join(f"{key}={params[key]}" for key in KEYS if key in params)
                print(f"    {us:8.2f} us  {library_us / us:.3f}x  {keys}")


if __name__ == "__main__":
    main()
