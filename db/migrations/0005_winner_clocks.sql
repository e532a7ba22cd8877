-- Schema version 5: the clocks a winner's final round ran at, sampled through NVML after each
-- round of the side-by-side timing: the median SM clock of the rounds kept (MHz), and how many
-- rounds were discarded because the GPU was throttled (power or thermal). sm_clock_mhz is NULL
-- where NVML was not there (and for rows measured before this version); then nothing was discarded.
ALTER TABLE winners ADD COLUMN sm_clock_mhz REAL;
ALTER TABLE winners ADD COLUMN throttled_rounds INTEGER NOT NULL DEFAULT 0;
