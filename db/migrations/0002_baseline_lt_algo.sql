-- Schema version 2: the cuBLASLt algorithm behind a cuBLASLt baseline (heuristic top-1 or the
-- autotuned one), as cublasLtMatmulAlgoConfigGetAttribute reports it, so a time can be read next
-- to what ran. The enums are stored as the text of their names in cublasLt.h (tile "128x64",
-- stages "64xAUTO", cluster "2x1x1", reduction "none"/"inplace"/"compute_type"/"output_type"),
-- the algorithm id raw. All NULL for cuBLAS GemmEx, for rows measured before this version, and
-- where cuBLASLt did not report the configuration.
ALTER TABLE baselines ADD COLUMN lt_algo_id INTEGER;
ALTER TABLE baselines ADD COLUMN lt_tile TEXT;
ALTER TABLE baselines ADD COLUMN lt_stages TEXT;
ALTER TABLE baselines ADD COLUMN lt_splitk INTEGER;
ALTER TABLE baselines ADD COLUMN lt_reduction TEXT;
ALTER TABLE baselines ADD COLUMN lt_swizzle INTEGER;
ALTER TABLE baselines ADD COLUMN lt_custom INTEGER;
ALTER TABLE baselines ADD COLUMN lt_cluster TEXT;
