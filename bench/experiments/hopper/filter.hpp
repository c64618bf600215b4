// The probes' case filter (bench/experiments/hopper/*_probe.cu).
#pragma once
#include <cstdlib>
#include <string>

// FILTER="a,b": run only the cases whose id contains a or b (every case without it).
inline bool selected(const std::string& id) {
  const char* f = std::getenv("FILTER");
  if (!f || !*f) return true;
  std::string all = f;
  for (size_t at = 0; at <= all.size();) {
    const size_t comma = all.find(',', at);
    const std::string part = all.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!part.empty() && id.find(part) != std::string::npos) return true;
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return false;
}
