#include "core/call_counters.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/json_numbers.hpp"

namespace cl2 {

namespace {

std::size_t index_of(CounterMetric metric) {
  for (std::size_t i = 0; i < kCounterMetrics.size(); ++i)
    if (kCounterMetrics[i].metric == metric) return i;
  throw std::logic_error("counter metric missing from kCounterMetrics");
}

}  // namespace

const CounterMetricSpec& counter_metric_spec(CounterMetric metric) { return kCounterMetrics[index_of(metric)]; }

CallCounters::CallCounters() { values.fill(std::numeric_limits<double>::quiet_NaN()); }

double CallCounters::value(CounterMetric metric) const { return values[index_of(metric)]; }

void CallCounters::set(CounterMetric metric, double value) { values[index_of(metric)] = value; }

bool CallCounters::operator==(const CallCounters& other) const {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] != other.values[i] && !(std::isnan(values[i]) && std::isnan(other.values[i]))) return false;
  return absent == other.absent;
}

CallCounters absent_counters(std::string reason) {
  CallCounters counters;
  counters.absent = std::move(reason);
  return counters;
}

nlohmann::json to_json(const CallCounters& counters) {
  if (!counters.measured()) return {{"absent", counters.absent}};
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < kCounterMetrics.size(); ++i)
    j[std::string(kCounterMetrics[i].key)] = number_or_null(counters.values[i]);
  return j;
}

CallCounters call_counters_from_json(const nlohmann::json& j) {
  if (j.contains("absent")) return absent_counters(j.at("absent").get<std::string>());
  CallCounters counters;
  for (std::size_t i = 0; i < kCounterMetrics.size(); ++i)
    counters.values[i] = number_or_nan(j, std::string(kCounterMetrics[i].key));
  return counters;
}

}  // namespace cl2
