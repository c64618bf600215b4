// Calls of `.func`: inlined when the caller is read (inline_calls.hpp). PTX ISA 9.0, "Function
// declarations and definitions" and "Control Flow Instructions: call": the caller declares
// `.param` variables in the call's block, stores the arguments there, calls, and loads the return
// value; the callee reads its params with ld.param and writes its return params with st.param.
// Here the caller's `.param` variables are thread-local bytes (ptx_parse.cpp), the callee's param
// names become the call site's, so those ld/st.param reach them.
#include "inline_calls.hpp"

#include <cctype>

namespace banklab::emu {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> names_in(const std::string& list) {  // "a, b" -> {a, b}
  std::vector<std::string> out;
  std::string cur;
  for (char c : list + ",") {
    if (c == ',') {
      if (!trim(cur).empty()) out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

void unsupported(Inst& in, const std::string& why) {
  in.family = Family::Unsupported;
  in.why = why;
}

}  // namespace

bool parse_call(const std::string& text, std::string& callee, std::vector<std::string>& rets, std::vector<std::string>& args) {
  std::string s = trim(text);
  if (!s.empty() && s[0] == '(') {
    const std::size_t close = s.find(')');
    if (close == std::string::npos) return false;
    rets = names_in(s.substr(1, close - 1));
    s = trim(s.substr(close + 1));
    if (s.empty() || s[0] != ',') return false;
    s = trim(s.substr(1));
  }
  const std::size_t comma = s.find(',');
  callee = trim(s.substr(0, comma));
  if (callee.empty() || callee.find_first_of("() ") != std::string::npos) return false;
  if (comma == std::string::npos) return true;
  s = trim(s.substr(comma + 1));
  if (s.size() < 2 || s[0] != '(' || s.back() != ')') return false;  // a prototype operand (indirect call): not taken
  args = names_in(s.substr(1, s.size() - 2));
  return true;
}

void inline_calls(Kernel& k, std::unordered_map<std::string, int>& labels, const std::map<std::string, Function>& functions) {
  bool any = false;
  for (const Inst& in : k.code) any = any || in.family == Family::Call;
  if (!any) return;
  std::vector<Inst> out;
  std::vector<int> moved(k.code.size() + 1, 0);
  std::unordered_map<std::string, int> added;
  int copies = 0;
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    moved[i] = static_cast<int>(out.size());
    Inst call = k.code[i];
    if (call.family != Family::Call) {
      out.push_back(std::move(call));
      continue;
    }
    auto f = functions.find(call.callee);
    if (f == functions.end()) {
      unsupported(call, "a call of `" + call.callee + "` (not a function defined before it: recursion or a prototype only)");
    } else if (call.guard >= 0) {
      unsupported(call, "a guarded call");
    } else if (f->second.params.size() != call.call_args.size() || f->second.retvals.size() != call.call_rets.size()) {
      unsupported(call, "a call of `" + call.callee + "` whose arguments are not its params");
    }
    if (call.family == Family::Unsupported) {
      out.push_back(std::move(call));
      continue;
    }
    const Function& fn = f->second;
    const int base = k.registers;
    k.registers += fn.body.registers;
    const std::string tag = "$inline" + std::to_string(copies++) + "$";
    std::unordered_map<std::string, std::string> names;  // the callee's names -> this copy's
    for (std::size_t j = 0; j < fn.params.size(); ++j) names[fn.params[j]] = call.call_args[j];
    for (std::size_t j = 0; j < fn.retvals.size(); ++j) names[fn.retvals[j]] = call.call_rets[j];
    for (const SharedVar& v : fn.body.locals) {
      SharedVar copy = v;
      copy.name = tag + v.name;
      names[v.name] = copy.name;
      k.locals.push_back(copy);
    }
    for (const auto& [label, at] : fn.labels) {
      names[label] = tag + label;
      added[tag + label] = static_cast<int>(out.size()) + at;
    }
    auto shift = [base](int& r) {
      if (r >= 0) r += base;
    };
    for (Inst c : fn.body.code) {
      shift(c.guard);
      for (int o = 0; o < c.nops; ++o) {
        Operand& op = c.ops[o];
        shift(op.reg);
        shift(op.pred);
        for (int e = 0; e < op.count; ++e) shift(op.regs[e]);
        if (auto n = names.find(op.symbol); n != names.end()) op.symbol = n->second;
      }
      if (c.family == Family::Ret) {  // back to the caller: to the end of this copy
        c.family = Family::Bra;
        c.nops = 1;
        c.ops[0] = Operand{};
        c.ops[0].kind = Operand::Kind::Label;
        c.ops[0].symbol = tag + "end";
      }
      out.push_back(std::move(c));
    }
    added[tag + "end"] = static_cast<int>(out.size());
  }
  moved[k.code.size()] = static_cast<int>(out.size());
  for (auto& [label, at] : labels) at = moved[static_cast<std::size_t>(at)];
  for (const auto& [label, at] : added) labels[label] = at;
  k.code = std::move(out);
}

}  // namespace banklab::emu
