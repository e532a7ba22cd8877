#pragma once
// Reads a shapes file: a JSON list whose entries are {"m":..,"n":..,"k":..} objects (optionally
// with "layout": "tn"|"nn", "accum": "f32"|"f16" and "l2": "warm"|"rotate"|"flush") or [m, n, k]
// triples. Every problem in the file is validated before anything else happens; the first bad
// entry raises a UserError that names the file, the entry and the fix.
#include <string>
#include <vector>

#include "core/problem.hpp"

namespace cl2 {

struct ShapeDefaults {
  Layout layout = Layout::TN;
  Accum accum = Accum::F32;
  L2Policy l2 = L2Policy::Warm;
};

std::vector<Problem> load_shape_file(const std::string& path, const ShapeDefaults& defaults);

// The same, from text already read; `source` names it in error messages.
std::vector<Problem> parse_shapes(const std::string& text, const std::string& source,
                                  const ShapeDefaults& defaults);

}  // namespace cl2
