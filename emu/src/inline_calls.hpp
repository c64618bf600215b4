// Calls of `.func` functions, done by the reader: each call is replaced by a copy of the callee's
// code (inline_calls.cpp), as if ptxas had inlined it.
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "banklab_emu/ptx.hpp"

namespace banklab::emu {

/// A `.func` as read: its code (registers from 0, names unresolved), its param and return-param
/// names in order, its labels.
struct Function {
  Kernel body;
  std::vector<std::string> params, retvals;
  std::unordered_map<std::string, int> labels;
};

/// Replaces every Call of `k` by a copy of its callee from `functions`: the callee's registers
/// after k's (k.registers grows), its labels and locals renamed for the copy, its params and
/// return params renamed to the call site's (which live in local memory: `.param` variables of the
/// caller's body), `ret` a branch to the copy's end. A call of an unknown function (or recursion:
/// a function is known once its body is read), a guarded call or one whose arguments do not match
/// is kept as Unsupported. `labels` (the caller's) is moved with the code.
void inline_calls(Kernel& k, std::unordered_map<std::string, int>& labels, const std::map<std::string, Function>& functions);

/// `(ret, ...), name, (arg, ...)` (the text after `call`): the names; false when it is not that.
bool parse_call(const std::string& text, std::string& callee, std::vector<std::string>& rets, std::vector<std::string>& args);

}  // namespace banklab::emu
