-- Schema version 6: the L2 policy a problem was timed under (core/problem.hpp's L2Policy): 'warm'
-- (every call reads the same operands, so what fits stays in the L2), 'rotate' (back-to-back calls
-- cycle through copies of the operands larger than the L2, so they come from DRAM) or 'flush'
-- (each call alone after the L2 was overwritten). The same shape under two policies is two
-- problems, each with its own trials, baselines, winner and counters, so l2 joins the problem
-- columns m, n, k, layout, accum in every key. Rows measured before this version were timed warm.
--
-- SQLite cannot change a table's keys in place, so each of the four tables is rebuilt: created
-- under a new name with every column of versions 1-5 and l2 after accum, filled from the old one
-- (ids kept, so winners still point at their trials), the old one dropped and the new one renamed.
-- This runs inside the migration's transaction with foreign keys on, so the order matters: the new
-- winners refer to the new trials, and the old winners go before the old trials, so that dropping
-- a table never leaves a row pointing at it. Renaming trials_v6 rewrites that reference to trials.

CREATE TABLE trials_v6 (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs (id),
  device_id    INTEGER NOT NULL REFERENCES devices (id),
  kernel_id    INTEGER NOT NULL REFERENCES kernels (id),
  m            INTEGER NOT NULL CHECK (m >= 1),
  n            INTEGER NOT NULL CHECK (n >= 1),
  k            INTEGER NOT NULL CHECK (k >= 1),
  layout       TEXT NOT NULL CHECK (layout IN ('tn', 'nn')),
  accum        TEXT NOT NULL CHECK (accum IN ('f32', 'f16')),
  l2           TEXT NOT NULL DEFAULT 'warm' CHECK (l2 IN ('warm', 'rotate', 'flush')),
  status       TEXT NOT NULL CHECK (status IN ('ok', 'verify_failed', 'compile_failed', 'rejected',
                                               'launch_failed', 'fault', 'timeout')),
  reason       TEXT NOT NULL DEFAULT '',
  max_diff     REAL,
  tolerance    REAL,
  time_us      REAL,
  spread_pct   REAL,
  samples      INTEGER NOT NULL DEFAULT 0,
  reference_us REAL,
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  kernel_trace TEXT,
  UNIQUE (device_id, kernel_id, m, n, k, layout, accum, l2)
);
INSERT INTO trials_v6 (id, run_id, device_id, kernel_id, m, n, k, layout, accum, l2, status, reason,
                       max_diff, tolerance, time_us, spread_pct, samples, reference_us, created_at,
                       kernel_trace)
  SELECT id, run_id, device_id, kernel_id, m, n, k, layout, accum, 'warm', status, reason, max_diff,
         tolerance, time_us, spread_pct, samples, reference_us, created_at, kernel_trace
  FROM trials ORDER BY id;

CREATE TABLE winners_v6 (
  device_id             INTEGER NOT NULL REFERENCES devices (id),
  run_id                INTEGER NOT NULL REFERENCES runs (id),
  m                     INTEGER NOT NULL CHECK (m >= 1),
  n                     INTEGER NOT NULL CHECK (n >= 1),
  k                     INTEGER NOT NULL CHECK (k >= 1),
  layout                TEXT NOT NULL CHECK (layout IN ('tn', 'nn')),
  accum                 TEXT NOT NULL CHECK (accum IN ('f32', 'f16')),
  l2                    TEXT NOT NULL DEFAULT 'warm' CHECK (l2 IN ('warm', 'rotate', 'flush')),
  kernel_id             INTEGER NOT NULL REFERENCES kernels (id),
  trial_id              INTEGER NOT NULL REFERENCES trials_v6 (id),
  time_us               REAL,
  spread_pct            REAL,
  max_diff              REAL,
  cublas_nn_us          REAL,
  cublas_tn_us          REAL,
  cublaslt_heuristic_us REAL,
  cublaslt_autotune_us  REAL,
  candidates_timed      INTEGER NOT NULL DEFAULT 0,
  measured_at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  sm_clock_mhz          REAL,
  throttled_rounds      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (device_id, m, n, k, layout, accum, l2)
);
INSERT INTO winners_v6 (device_id, run_id, m, n, k, layout, accum, l2, kernel_id, trial_id, time_us,
                        spread_pct, max_diff, cublas_nn_us, cublas_tn_us, cublaslt_heuristic_us,
                        cublaslt_autotune_us, candidates_timed, measured_at, sm_clock_mhz,
                        throttled_rounds)
  SELECT device_id, run_id, m, n, k, layout, accum, 'warm', kernel_id, trial_id, time_us, spread_pct,
         max_diff, cublas_nn_us, cublas_tn_us, cublaslt_heuristic_us, cublaslt_autotune_us,
         candidates_timed, measured_at, sm_clock_mhz, throttled_rounds
  FROM winners;

CREATE TABLE baselines_v6 (
  device_id    INTEGER NOT NULL REFERENCES devices (id),
  run_id       INTEGER NOT NULL REFERENCES runs (id),
  m            INTEGER NOT NULL CHECK (m >= 1),
  n            INTEGER NOT NULL CHECK (n >= 1),
  k            INTEGER NOT NULL CHECK (k >= 1),
  layout       TEXT NOT NULL CHECK (layout IN ('tn', 'nn')),
  accum        TEXT NOT NULL CHECK (accum IN ('f32', 'f16')),
  l2           TEXT NOT NULL DEFAULT 'warm' CHECK (l2 IN ('warm', 'rotate', 'flush')),
  provider     TEXT NOT NULL,
  time_us      REAL,
  spread_pct   REAL,
  samples      INTEGER NOT NULL DEFAULT 0,
  max_diff     REAL,
  detail       TEXT NOT NULL DEFAULT '',
  measured_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  lt_algo_id   INTEGER,
  lt_tile      TEXT,
  lt_stages    TEXT,
  lt_splitk    INTEGER,
  lt_reduction TEXT,
  lt_swizzle   INTEGER,
  lt_custom    INTEGER,
  lt_cluster   TEXT,
  kernel_trace TEXT,
  trace_flag   TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (device_id, m, n, k, layout, accum, l2, provider)
);
INSERT INTO baselines_v6 (device_id, run_id, m, n, k, layout, accum, l2, provider, time_us, spread_pct,
                          samples, max_diff, detail, measured_at, lt_algo_id, lt_tile, lt_stages,
                          lt_splitk, lt_reduction, lt_swizzle, lt_custom, lt_cluster, kernel_trace,
                          trace_flag)
  SELECT device_id, run_id, m, n, k, layout, accum, 'warm', provider, time_us, spread_pct, samples,
         max_diff, detail, measured_at, lt_algo_id, lt_tile, lt_stages, lt_splitk, lt_reduction,
         lt_swizzle, lt_custom, lt_cluster, kernel_trace, trace_flag
  FROM baselines;

CREATE TABLE counters_v6 (
  device_id           INTEGER NOT NULL REFERENCES devices (id),
  run_id              INTEGER NOT NULL REFERENCES runs (id),
  m                   INTEGER NOT NULL CHECK (m >= 1),
  n                   INTEGER NOT NULL CHECK (n >= 1),
  k                   INTEGER NOT NULL CHECK (k >= 1),
  layout              TEXT NOT NULL CHECK (layout IN ('tn', 'nn')),
  accum               TEXT NOT NULL CHECK (accum IN ('f32', 'f16')),
  l2                  TEXT NOT NULL DEFAULT 'warm' CHECK (l2 IN ('warm', 'rotate', 'flush')),
  provider            TEXT NOT NULL,
  kernel_id           INTEGER REFERENCES kernels (id),  -- ours: the kernel measured; NULL for a library
  detail              TEXT NOT NULL DEFAULT '',         -- what the library ran, and how it was chosen
  gpu_time_us         REAL,
  dram_throughput_pct REAL,
  dram_read_bytes     REAL,
  l2_bytes            REAL,
  tensor_active_pct   REAL,
  l2_throughput_pct   REAL,
  occupancy_pct       REAL,
  absent              TEXT NOT NULL DEFAULT '',
  measured_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  PRIMARY KEY (device_id, m, n, k, layout, accum, l2, provider)
);
INSERT INTO counters_v6 (device_id, run_id, m, n, k, layout, accum, l2, provider, kernel_id, detail,
                         gpu_time_us, dram_throughput_pct, dram_read_bytes, l2_bytes,
                         tensor_active_pct, l2_throughput_pct, occupancy_pct, absent, measured_at)
  SELECT device_id, run_id, m, n, k, layout, accum, 'warm', provider, kernel_id, detail, gpu_time_us,
         dram_throughput_pct, dram_read_bytes, l2_bytes, tensor_active_pct, l2_throughput_pct,
         occupancy_pct, absent, measured_at
  FROM counters;

DROP TABLE winners;
DROP TABLE trials;  -- takes its index trials_by_problem with it
DROP TABLE baselines;
DROP TABLE counters;
ALTER TABLE trials_v6 RENAME TO trials;
ALTER TABLE winners_v6 RENAME TO winners;
ALTER TABLE baselines_v6 RENAME TO baselines;
ALTER TABLE counters_v6 RENAME TO counters;

-- `show M N K` and the driver list the trials of one problem on one device.
CREATE INDEX trials_by_problem ON trials (device_id, m, n, k, layout, accum, l2);
