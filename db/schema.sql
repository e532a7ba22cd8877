-- cuda-l2-tune tuning database, schema version 1.
--
-- Applied by src/db/schema_migrations.cpp inside one transaction on an empty file; the code then
-- sets PRAGMA user_version = 1 and PRAGMA application_id = 0x434C3254 ("CL2T"). Later versions
-- are db/migrations/000N_*.sql steps on top of this file; this file is never edited once shipped.
--
-- Conventions: times are GPU microseconds per call, spread_pct = 100 * stdev / mean, a quantity
-- that was not measured is NULL, timestamps are UTC ISO 8601 text filled by SQLite.

-- One invocation of `tune` (or any command that measures), so every row says which run made it.
CREATE TABLE runs (
  id           INTEGER PRIMARY KEY,
  started_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  finished_at  TEXT,
  command_line TEXT NOT NULL,
  shapes_file  TEXT NOT NULL DEFAULT '',
  status       TEXT NOT NULL DEFAULT 'running'
);

-- A GPU with the software stack it was measured under; the same board after a driver update is a
-- new device, because its numbers are not comparable. info_json holds the whole DeviceInfo, the
-- columns beside it are copies for queries by hand.
CREATE TABLE devices (
  id                   INTEGER PRIMARY KEY,
  fingerprint          TEXT NOT NULL UNIQUE,
  name                 TEXT NOT NULL,
  cc_major             INTEGER NOT NULL,
  cc_minor             INTEGER NOT NULL,
  num_sms              INTEGER NOT NULL,
  sm_clock_mhz         INTEGER NOT NULL,
  mem_clock_mhz        INTEGER NOT NULL,
  l2_bytes             INTEGER NOT NULL,
  smem_optin_bytes     INTEGER NOT NULL,
  driver_version       TEXT NOT NULL,
  cuda_runtime_version TEXT NOT NULL,
  cublas_version       TEXT NOT NULL,
  nvrtc_version        TEXT NOT NULL,
  info_json            TEXT NOT NULL,
  first_seen           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- A compiled (or failed) kernel variant: identified by its configuration, the architecture and
-- the hash of the generated source, so a template change makes new kernels.
CREATE TABLE kernels (
  id                INTEGER PRIMARY KEY,
  family            TEXT NOT NULL,
  config_json       TEXT NOT NULL,
  source_hash       TEXT NOT NULL,
  arch              TEXT NOT NULL,
  compiled          INTEGER NOT NULL CHECK (compiled IN (0, 1)),
  registers         INTEGER NOT NULL,
  stack_bytes       INTEGER NOT NULL,
  spill_bytes       INTEGER NOT NULL,
  smem_static_bytes INTEGER NOT NULL,
  compile_log       TEXT NOT NULL DEFAULT '',
  UNIQUE (config_json, arch, source_hash)
);

-- Every attempt of a kernel on a problem, failures included, at most one per (device, kernel,
-- problem): a resumed run finds it and skips it.
CREATE TABLE trials (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs (id),
  device_id    INTEGER NOT NULL REFERENCES devices (id),
  kernel_id    INTEGER NOT NULL REFERENCES kernels (id),
  m            INTEGER NOT NULL CHECK (m >= 1),
  n            INTEGER NOT NULL CHECK (n >= 1),
  k            INTEGER NOT NULL CHECK (k >= 1),
  layout       TEXT NOT NULL CHECK (layout IN ('tn', 'nn')),
  accum        TEXT NOT NULL CHECK (accum IN ('f32', 'f16')),
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
  UNIQUE (device_id, kernel_id, m, n, k, layout, accum)
);
-- `show M N K` and the driver list the trials of one problem on one device.
CREATE INDEX trials_by_problem ON trials (device_id, m, n, k, layout, accum);

-- Library timings of a problem, the latest measurement per provider.
CREATE TABLE baselines (
  device_id   INTEGER NOT NULL REFERENCES devices (id),
  run_id      INTEGER NOT NULL REFERENCES runs (id),
  m           INTEGER NOT NULL CHECK (m >= 1),
  n           INTEGER NOT NULL CHECK (n >= 1),
  k           INTEGER NOT NULL CHECK (k >= 1),
  layout      TEXT NOT NULL CHECK (layout IN ('tn', 'nn')),
  accum       TEXT NOT NULL CHECK (accum IN ('f32', 'f16')),
  provider    TEXT NOT NULL,
  time_us     REAL,
  spread_pct  REAL,
  samples     INTEGER NOT NULL DEFAULT 0,
  max_diff    REAL,
  detail      TEXT NOT NULL DEFAULT '',
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  PRIMARY KEY (device_id, m, n, k, layout, accum, provider)
);

-- The best-kernel table: one row per (device, problem), re-timed interleaved with the libraries.
CREATE TABLE winners (
  device_id             INTEGER NOT NULL REFERENCES devices (id),
  run_id                INTEGER NOT NULL REFERENCES runs (id),
  m                     INTEGER NOT NULL CHECK (m >= 1),
  n                     INTEGER NOT NULL CHECK (n >= 1),
  k                     INTEGER NOT NULL CHECK (k >= 1),
  layout                TEXT NOT NULL CHECK (layout IN ('tn', 'nn')),
  accum                 TEXT NOT NULL CHECK (accum IN ('f32', 'f16')),
  kernel_id             INTEGER NOT NULL REFERENCES kernels (id),
  trial_id              INTEGER NOT NULL REFERENCES trials (id),
  time_us               REAL,
  spread_pct            REAL,
  max_diff              REAL,
  cublas_nn_us          REAL,
  cublas_tn_us          REAL,
  cublaslt_heuristic_us REAL,
  cublaslt_autotune_us  REAL,
  candidates_timed      INTEGER NOT NULL DEFAULT 0,
  measured_at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  PRIMARY KEY (device_id, m, n, k, layout, accum)
);
