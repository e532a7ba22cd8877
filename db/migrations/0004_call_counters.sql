-- Schema version 4: hardware counters of a problem's calls, as CUPTI's Range Profiler measured one
-- launch of each (`cuda-l2-tune profile`, or `tune --counters`): our winner's kernel and the
-- library's fastest call, the latest measurement per provider. The metric columns follow
-- kCounterMetrics in core/call_counters.hpp (units in their names; bytes are per call); NULL where
-- the metric was not collected (one that needs a second pass on the chip is dropped). Where CUPTI
-- was missing or refused, every metric is NULL and `absent` says why.
CREATE TABLE counters (
  device_id           INTEGER NOT NULL REFERENCES devices (id),
  run_id              INTEGER NOT NULL REFERENCES runs (id),
  m                   INTEGER NOT NULL CHECK (m >= 1),
  n                   INTEGER NOT NULL CHECK (n >= 1),
  k                   INTEGER NOT NULL CHECK (k >= 1),
  layout              TEXT NOT NULL CHECK (layout IN ('tn', 'nn')),
  accum               TEXT NOT NULL CHECK (accum IN ('f32', 'f16')),
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
  PRIMARY KEY (device_id, m, n, k, layout, accum, provider)
);
