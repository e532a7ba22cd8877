-- Schema version 3: the kernels each timed call launched, as CUPTI's kernel records saw one pass
-- of it, stored as the JSON of core/call_trace.hpp: {"kernels": [{"name", "stream_id",
-- "on_given_stream", "grid", "block", "launches", "duration_us"}, ...]} (each kernel's launches and
-- their summed duration per call), or {"absent": "why"} where CUPTI was missing or refused. NULL
-- where nothing was traced: rows measured before this version, and trials that failed before they
-- were timed. A trial whose trace shows work its event time missed is verify_failed, with why as
-- its reason.
ALTER TABLE trials ADD COLUMN kernel_trace TEXT;
ALTER TABLE baselines ADD COLUMN kernel_trace TEXT;
-- Why a library baseline's event time does not account for what its call ran (a kernel on another
-- stream, or less time than its kernels' summed duration); '' when it does or was not traced.
-- The time is kept beside the flag.
ALTER TABLE baselines ADD COLUMN trace_flag TEXT NOT NULL DEFAULT '';
