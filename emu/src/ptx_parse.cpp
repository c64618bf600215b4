// Reading PTX text into a Module: the directives nvcc writes around the kernels (.version,
// .target, .file, .loc, .entry with its params, .reg, .shared, labels), and one instruction a
// line, decoded by the tables of ptx_ops.cpp. The text is the student's: every malformed line
// is either an error naming its line or an Unsupported instruction, never a crash.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "banklab_emu/ptx.hpp"
#include "banklab_trace/format.hpp"
#include "inline_calls.hpp"
#include "ptx_lex.hpp"

namespace banklab::emu {

namespace {

using namespace lex;  // NOLINT: the reader's own lexical pieces (ptx_lex.hpp)

// Labels, shared, local and module variables and params named in operands, now that the whole
// kernel is read.
void resolve(Kernel& k, const std::unordered_map<std::string, int>& labels, const std::vector<ModuleVar>& vars) {
  std::unordered_map<std::string, std::int64_t> shared, params, locals;
  std::unordered_map<std::string, int> module_vars;
  for (const SharedVar& v : k.shared) shared[v.name] = banklab::trace::kSharedWindowReservedBytes + v.offset;
  for (const Param& p : k.params) params[p.name] = p.offset;
  for (const SharedVar& v : k.locals) locals[v.name] = v.offset;
  for (std::size_t i = 0; i < vars.size(); ++i) module_vars[vars[i].name] = static_cast<int>(i);
  for (Inst& in : k.code) {
    for (int i = 0; i < in.nops; ++i) {
      Operand& op = in.ops[i];
      if (op.symbol.empty()) continue;
      if (op.kind == Operand::Kind::Label) {
        if (auto l = labels.find(op.symbol); l != labels.end() && in.family == Family::Bra) {
          op.imm = l->second;
        } else if (auto s = shared.find(op.symbol); s != shared.end() && in.family != Family::Bra) {
          op.kind = Operand::Kind::Imm;  // a shared variable's address
          op.imm = s->second;
        } else if (auto lv = locals.find(op.symbol); lv != locals.end() && in.family != Family::Bra) {
          op.kind = Operand::Kind::Imm;  // a local variable's address (in the local space)
          op.imm = lv->second;
        } else if (auto pa = params.find(op.symbol); pa != params.end() && in.family == Family::Mov) {
          op.kind = Operand::Kind::Imm;  // a param's address in the param space (cvta.param makes it generic)
          op.imm = pa->second;
        } else if (auto mv = module_vars.find(op.symbol); mv != module_vars.end() && in.family != Family::Bra) {
          op.kind = Operand::Kind::Imm;  // a module variable's address, known at launch
          op.imm = 0;
          op.var = mv->second;
        } else {
          in.family = Family::Unsupported;
          in.why = "the name `" + op.symbol + "`";
        }
      } else if (op.kind == Operand::Kind::Address) {
        if (auto s = shared.find(op.symbol); s != shared.end() && in.space == Space::Shared) {
          op.imm += s->second;
        } else if (auto p = params.find(op.symbol); p != params.end() && in.space == Space::Param) {
          op.imm += p->second;
        } else if (auto lv = locals.find(op.symbol); lv != locals.end() &&
                   (in.space == Space::Local || in.space == Space::Param)) {
          op.imm += lv->second;  // a .local variable, or a call site's .param (kept in local memory)
          in.space = Space::Local;
        } else if (auto mv = module_vars.find(op.symbol); mv != module_vars.end() &&
                   (in.space == Space::Global || in.space == Space::Const || in.space == Space::Generic)) {
          op.var = mv->second;
        } else {
          in.family = Family::Unsupported;
          in.why = "the address `[" + op.symbol + "]` in `" + in.text + "`";
        }
      }
    }
  }
}

void lay_out_shared(Kernel& k, const std::vector<SharedVar>& module_dynamic) {
  std::uint32_t at = 0;
  for (SharedVar& v : k.shared) {
    if (v.dynamic) continue;
    at = align_up(at, v.align);
    v.offset = at;
    at += v.size;
  }
  k.static_shared_bytes = at;
  std::uint32_t local = 0;
  for (SharedVar& v : k.locals) {
    local = align_up(local, v.align);
    v.offset = local;
    local += v.size;
  }
  k.local_bytes = local;
  for (const SharedVar& d : module_dynamic) k.shared.push_back(d);
  for (SharedVar& v : k.shared)
    if (v.dynamic) v.offset = align_up(at, v.align);
}

// The text's lines as statements, each with its PTX line: comments removed (// to the end of the
// line, /* ... */ across lines), trimmed, empty ones dropped; a line of several statements in braces
// (inline asm: cuda_fp16.hpp's `{  cvt.f32.f16 %f1, %rs1;}`) becomes `{`, each statement, `}`.
std::vector<std::pair<int, std::string>> statements_of(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  std::istringstream in(text);
  std::string raw;
  bool in_comment = false;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string l;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (in_comment) {
        if (raw.compare(i, 2, "*/") == 0) { in_comment = false; ++i; }
        continue;
      }
      if (raw.compare(i, 2, "//") == 0) break;
      if (raw.compare(i, 2, "/*") == 0) { in_comment = true; ++i; continue; }
      l += raw[i];
    }
    l = trim(l);
    if (l.empty()) continue;
    if (l[0] != '{' || l.size() == 1) {
      out.emplace_back(line_no, l);
      continue;
    }
    out.emplace_back(line_no, "{");
    std::string rest = trim(l.substr(1));
    const bool closed = !rest.empty() && rest.back() == '}';
    if (closed) rest = trim(rest.substr(0, rest.size() - 1));
    std::size_t from = 0;
    while (from < rest.size()) {
      const std::size_t semi = rest.find(';', from);
      const std::string one = trim(rest.substr(from, semi == std::string::npos ? std::string::npos : semi - from));
      if (!one.empty()) out.emplace_back(line_no, semi == std::string::npos ? one : one + ";");
      if (semi == std::string::npos) break;
      from = semi + 1;
    }
    if (closed) out.emplace_back(line_no, "}");
  }
  return out;
}

}  // namespace

const Kernel* Module::find(const std::string& name) const {
  for (const Kernel& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

Module parse_ptx(const std::string& text) {
  Module mod;
  std::vector<SharedVar> module_dynamic;  // `.extern .shared` at module scope: every kernel's
  enum class State { Top, Header, Body, Skip } state = State::Top;
  int depth = 0, line_no = 0;
  bool opened = false;
  std::string header;
  bool is_func = false;                      // the body being read is a .func's
  std::map<std::string, Function> functions;  // the .func bodies read so far
  Function fn;
  std::string pending;                        // a call written over several lines
  std::unordered_map<std::string, std::string> scoped;  // a call block's .param names -> unique ones
  int blocks = 0;
  Kernel k;
  Registers regs;
  std::unordered_map<std::string, int> labels;
  int file = 0, line = 0;
  for (auto& [at, statement] : statements_of(text)) {
    line_no = at;
    std::string l = std::move(statement);
    if (state == State::Skip) {  // a .section or a .func body: braces counted
      for (char c : l) {
        if (c == '{') { ++depth; opened = true; }
        if (c == '}') --depth;
      }
      if ((opened && depth <= 0) || (!opened && l.back() == ';')) state = State::Top;  // (a prototype ends at its `;`)
      continue;
    }
    if (state == State::Top) {
      if (l.rfind(".file", 0) == 0) {
        std::istringstream f(l.substr(5));
        int n = 0;
        f >> n;
        const std::size_t q = l.find('"'), q2 = l.find('"', q + 1);
        if (q != std::string::npos && q2 != std::string::npos) mod.files[n] = l.substr(q + 1, q2 - q - 1);
      } else if (l.find(".entry") != std::string::npos ||
                 (l.find(".func") != std::string::npos && l.find(".extern") == std::string::npos && l.back() != ';')) {
        is_func = l.find(".entry") == std::string::npos;
        state = State::Header;
        header = l.substr(l.find(is_func ? ".func" : ".entry") + (is_func ? 5 : 6));
        k = Kernel{};
        fn = Function{};
        regs.clear();
        labels.clear();
      } else if (l.find(".section") != std::string::npos ||
                 (l.find(".func") != std::string::npos && l.back() != ';')) {  // a prototype has no body
        state = State::Skip;
        depth = 0;
        opened = false;
        for (char c : l) {
          if (c == '{') { ++depth; opened = true; }
          if (c == '}') --depth;
        }
        if (opened && depth <= 0) state = State::Top;
      } else if ((l.rfind(".global", 0) == 0 || l.rfind(".const", 0) == 0 || l.rfind(".visible .global", 0) == 0 ||
                  l.rfind(".visible .const", 0) == 0) && l.find(".extern") == std::string::npos) {
        mod.variables.push_back(parse_module_variable(l, line_no));
      } else if (l.find(".shared") != std::string::npos && l.find(".extern") != std::string::npos) {
        SharedVar v;
        parse_variable(l, line_no, v.name, v.size, v.align, v.dynamic);
        v.dynamic = true;
        module_dynamic.push_back(v);
      }
      // .version, .target, .address_size, .global/.const variables (used: Unsupported), ...
      if (state != State::Header) continue;
    } else if (state == State::Header) {
      header += " " + l;
    }
    if (state == State::Header) {
      std::string h = trim(header);
      if (is_func && h.find('{') == std::string::npos && !h.empty() && h.back() == ';') {  // a prototype
        state = State::Top;
        continue;
      }
      if (is_func && !h.empty() && h[0] == '(') {  // .func (.param .b32 func_retval0) name(...)
        const std::size_t r = h.find(')');
        if (r == std::string::npos) continue;
        for (const std::string& p : split_operands(h.substr(1, r - 1))) {
          Param prm;
          bool dyn = false;
          parse_variable(p, line_no, prm.name, prm.size, prm.align, dyn);
          fn.retvals.push_back(prm.name);
        }
        header = h = trim(h.substr(r + 1));
        if (h.empty()) continue;
      }
      const std::size_t open = h.find('('), close = h.find(')');
      if (open == std::string::npos || close == std::string::npos) continue;
      if (h.find('{', close) == std::string::npos) continue;  // .maxntid and the like come first
      k.name = trim(h.substr(0, open));
      header = h;
      std::uint32_t at = 0;
      for (const std::string& p : split_operands(header.substr(open + 1, close - open - 1))) {
        Param prm;
        bool dyn = false;
        parse_variable(p, line_no, prm.name, prm.size, prm.align, dyn);
        prm.offset = at = align_up(at, prm.align);
        at += prm.size;
        k.params.push_back(prm);
        fn.params.push_back(prm.name);
      }
      k.param_bytes = at;
      state = State::Body;
      depth = 1;
      continue;
    }
    // The kernel's body.
    if (!pending.empty()) {  // the rest of a call
      pending += " " + l;
      if (l.back() != ';') continue;
      l = pending;
      pending.clear();
    } else if ((l.rfind("call", 0) == 0 || (l[0] == '@' && l.find(" call") != std::string::npos)) && l.back() != ';') {
      pending = l;
      continue;
    }
    if (l == "{") { ++depth; ++blocks; continue; }
    if (l == "}") {
      scoped.clear();
      if (--depth > 0) continue;
      k.registers = regs.count();
      inline_calls(k, labels, functions);
      if (is_func) {  // kept until a kernel calls it: its names are the call site's
        fn.body = std::move(k);
        fn.labels = labels;
        functions[fn.body.name] = std::move(fn);
        fn = Function{};
        k = Kernel{};
        state = State::Top;
        continue;
      }
      lay_out_shared(k, module_dynamic);
      resolve(k, labels, mod.variables);
      compute_reconvergence(k);
      mark_unused_results(k);
      mod.kernels.push_back(std::move(k));
      k = Kernel{};
      state = State::Top;
      continue;
    }
    if (l.rfind(".local", 0) == 0 || l.rfind(".param", 0) == 0) {  // each thread's own (a call site's params too)
      SharedVar v;
      parse_variable(l, line_no, v.name, v.size, v.align, v.dynamic);
      if (v.dynamic) fail(line_no, "a local variable without a size `" + l + "`");
      if (depth > 1) {  // a call block's: its name is the block's only (every call block has a param0)
        const std::string unique = v.name + "$block" + std::to_string(blocks);
        scoped[v.name] = unique;
        v.name = unique;
      }
      k.locals.push_back(v);
      continue;
    }
    if (l.rfind(".loc", 0) == 0) {
      std::istringstream f(l.substr(4));
      f >> file >> line;
      continue;
    }
    if (l.rfind(".reg", 0) == 0) {
      std::istringstream f(l.substr(4));
      std::string type;
      f >> type;
      std::string rest;
      std::getline(f, rest);
      if (!rest.empty() && rest.back() == ';') rest.pop_back();
      for (const std::string& name : split_operands(rest)) regs.declare(name, line_no, type == ".pred");
      continue;
    }
    if (l.find(".shared") != std::string::npos && l[0] == '.') {
      SharedVar v;
      parse_variable(l, line_no, v.name, v.size, v.align, v.dynamic);
      k.shared.push_back(v);
      continue;
    }
    if (l[0] == '.') continue;  // .pragma, .local declarations (their use is Unsupported), ...
    if (l.back() == ':') {
      labels[l.substr(0, l.size() - 1)] = static_cast<int>(k.code.size());
      continue;
    }
    // An instruction: [@[!]%p] mnemonic operands;
    Inst inst;
    inst.ptx_line = line_no;
    inst.file = file;
    inst.line = line;
    if (l.back() == ';') l.pop_back();
    inst.text = trim(l);
    std::string s = inst.text;
    if (s[0] == '@') {
      std::size_t sp = s.find_first_of(" \t");
      std::string g = s.substr(1, sp - 1);
      if (!g.empty() && g[0] == '!') { inst.guard_negate = true; g = g.substr(1); }
      inst.guard = regs.find(g);
      if (inst.guard < 0 || sp == std::string::npos) fail(line_no, "a guard `" + s + "`");
      s = trim(s.substr(sp));
    }
    const std::size_t sp = s.find_first_of(" \t");
    decode_mnemonic(s.substr(0, sp), inst);
    if (inst.family == Family::Call) {  // its operands are names (inline_calls.cpp binds them)
      if (!parse_call(sp == std::string::npos ? "" : s.substr(sp), inst.callee, inst.call_rets, inst.call_args))
        inst.callee.clear();
      for (std::vector<std::string>* names : {&inst.call_rets, &inst.call_args})
        for (std::string& n : *names)
          if (auto u = scoped.find(n); u != scoped.end()) n = u->second;
      check_operands(inst);
      k.code.push_back(std::move(inst));
      continue;
    }
    const std::vector<std::string> ops = sp == std::string::npos ? std::vector<std::string>{} : split_operands(s.substr(sp));
    if (ops.size() > 5) {
      inst.family = Family::Unsupported;
      inst.why = "the operands of `" + inst.text + "`";
    }
    for (std::size_t i = 0; i < ops.size() && i < 5; ++i) {
      // setp's `%p|%q` (two results) is not emulated.
      if (!parse_operand(ops[i], regs, inst.ops[i]) && inst.why.empty()) {
        inst.family = Family::Unsupported;
        inst.why = "the operand `" + ops[i] + "` of `" + inst.text + "`";
      }
      if (auto u = scoped.find(inst.ops[i].symbol); u != scoped.end()) inst.ops[i].symbol = u->second;
    }
    inst.nops = static_cast<int>(std::min<std::size_t>(ops.size(), 5));
    check_operands(inst);
    k.code.push_back(std::move(inst));
  }
  if (state != State::Top) fail(line_no, "the text ends inside a kernel or block");
  return mod;
}

}  // namespace banklab::emu
