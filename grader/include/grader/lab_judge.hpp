// What the generated grader/labNN_judge.hpp (python/banklab/lab/gen.py, from a lab's
// description) builds on: a kernel's compiled name, an access table's instructions filtered by
// index, a label's picked word, lists joined. Judge only: never part of the probe's snapshot.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "grader/grader.hpp"

namespace grader_desc {

/// A __global__ function of kernel.cu the GPU tier finds in the student's compiled code
/// (the description's [[kernels]]).
struct Kernel {
  const char* name;
  const char* symbol;    ///< its Itanium-mangled name, e.g. "_ZN5lab0416transpose_paddedEPfPKfii"
  const char* readable;  ///< as kernel.cu declares it, e.g. "lab04::transpose_padded(float* odata, ...)"
};

}  // namespace grader_desc

namespace grader {

/// The instructions of an access table whose index matches `only` (one index per dim, -1 for
/// any; empty: all), each named by `name(index)`.
inline std::vector<Instruction> all_of(const AccessTable& table, const std::vector<int>& only,
                                       const std::function<std::string(const std::vector<int>&)>& name) {
  std::vector<bool> keep;
  std::vector<Instruction> all = all_of(table, [&](const std::vector<int>& i) {
    bool k = true;
    for (std::size_t d = 0; d < only.size() && d < i.size(); ++d) k = k && (only[d] < 0 || only[d] == i[d]);
    keep.push_back(k);
    return k ? name(i) : std::string();
  });
  std::vector<Instruction> out;
  for (std::size_t n = 0; n < all.size(); ++n)
    if (keep[n]) out.push_back(std::move(all[n]));
  return out;
}

/// The instructions of several lists, one after the other.
inline std::vector<Instruction> joined(std::initializer_list<std::vector<Instruction>> lists) {
  std::vector<Instruction> out;
  for (const std::vector<Instruction>& l : lists) out.insert(out.end(), l.begin(), l.end());
  return out;
}

/// Word number `value` of `words` (a label's {expr: A|B}); "?" outside them.
inline std::string pick(long long value, std::initializer_list<const char*> words) {
  return value >= 0 && value < static_cast<long long>(words.size()) ? words.begin()[value] : "?";
}

}  // namespace grader
