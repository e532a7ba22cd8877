#pragma once
// Reads a cuBLASLt algorithm's configuration (cublasLtMatmulAlgoConfigGetAttribute) into the
// plain LtAlgoConfig the database and exports carry.
#include <cublasLt.h>

#include <optional>

#include "core/lt_algo_config.hpp"

namespace cl2 {

// nullopt when cuBLASLt refuses any of the attributes (or reports a size other than the one its
// header documents): the baseline is still timed, its algorithm recorded as unknown, because a
// missing description must not cost a shape its measurement.
std::optional<LtAlgoConfig> query_lt_algo_config(const cublasLtMatmulAlgo_t& algo);

}  // namespace cl2
