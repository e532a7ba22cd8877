-- Schema version 8: where each tuning run's time went (`tune`'s closing "time by stage" line), so
-- that run history can be read back (`show`) and compared night to night. A JSON list, in the
-- order the stages run, of {"stage": name, "seconds": wall seconds, "count": requests (candidates,
-- for racing and screening)}; NULL for runs before this version and for commands that do not tune.
ALTER TABLE runs ADD COLUMN stage_seconds TEXT;
