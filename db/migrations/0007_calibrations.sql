-- Schema version 7: cost-model calibrations fitted to this database's trials (`calibrate --store`),
-- per GPU model (the device's name: one fit serves every driver version) and family. `factors` is
-- a JSON list of [rule, factor] pairs, each rule as the family's space file writes it; `scale` is
-- NULL where none was fitted. `tune` plans with them on that GPU in place of the space file's.
CREATE TABLE calibrations (
  device_name TEXT NOT NULL,
  family TEXT NOT NULL,
  factors TEXT NOT NULL,
  scale REAL,
  trials INTEGER NOT NULL,
  fitted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  PRIMARY KEY (device_name, family)
);
