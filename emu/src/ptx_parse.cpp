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

namespace banklab::emu {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

[[noreturn]] void fail(int line, const std::string& what) {
  throw std::runtime_error("PTX line " + std::to_string(line) + ": " + what);
}

// Splits at commas outside braces and brackets.
std::vector<std::string> split_operands(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

// An integer or a float's raw bits (0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX); false when `s` is not one.
bool parse_number(const std::string& s, std::int64_t& v) {
  if (s.empty()) return false;
  if (s.size() == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
    v = static_cast<std::int64_t>(std::strtoull(s.c_str() + 2, nullptr, 16));
    return true;
  }
  if (s.size() == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
    v = static_cast<std::int64_t>(std::strtoull(s.c_str() + 2, nullptr, 16));
    return true;
  }
  const char* p = s.c_str();
  const bool neg = *p == '-';
  if (neg || *p == '+') ++p;
  if (!std::isdigit(static_cast<unsigned char>(*p))) return false;
  char* end = nullptr;
  const unsigned long long u = std::strtoull(p, &end, 0);
  if (*end == 'U' || *end == 'u') ++end;
  if (*end != '\0') return false;
  v = neg ? -static_cast<std::int64_t>(u) : static_cast<std::int64_t>(u);
  return true;
}

struct SpecialName { const char* name; Special special; };
constexpr SpecialName kSpecials[] = {
    {"%tid.x", Special::TidX},          {"%tid.y", Special::TidY},          {"%tid.z", Special::TidZ},
    {"%ntid.x", Special::NtidX},        {"%ntid.y", Special::NtidY},        {"%ntid.z", Special::NtidZ},
    {"%ctaid.x", Special::CtaidX},      {"%ctaid.y", Special::CtaidY},      {"%ctaid.z", Special::CtaidZ},
    {"%nctaid.x", Special::NctaidX},    {"%nctaid.y", Special::NctaidY},    {"%nctaid.z", Special::NctaidZ},
    {"%laneid", Special::LaneId},       {"%warpid", Special::WarpId},       {"%nwarpid", Special::NwarpId},
    {"%lanemask_eq", Special::LanemaskEq}, {"%lanemask_lt", Special::LanemaskLt},
    {"%lanemask_le", Special::LanemaskLe}, {"%lanemask_gt", Special::LanemaskGt},
    {"%lanemask_ge", Special::LanemaskGe},
};

// The registers a kernel declares: `%r<294>` gives %r0 .. %r293, `%p1` one register.
class Registers {
 public:
  void declare(const std::string& decl, int line, bool predicate = false) {
    const std::size_t lt = decl.find('<');
    if (lt == std::string::npos) {
      singles_[decl] = next_++;
      predicate_.resize(static_cast<std::size_t>(next_), predicate);
      return;
    }
    const int n = std::atoi(decl.c_str() + lt + 1);
    if (n <= 0 || n > 1 << 20) fail(line, "a register declaration `" + decl + "`");
    ranges_[decl.substr(0, lt)] = {next_, n};
    next_ += n;
    predicate_.resize(static_cast<std::size_t>(next_), predicate);
  }
  /// Declared `.pred` (cp.async tells ignore-src from src-size by it).
  bool predicate(int index) const { return index >= 0 && static_cast<std::size_t>(index) < predicate_.size() && predicate_[static_cast<std::size_t>(index)]; }
  int find(const std::string& name) const {
    if (auto it = singles_.find(name); it != singles_.end()) return it->second;
    std::size_t d = name.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(name[d - 1]))) --d;
    if (d == name.size() || d == 0) return -1;
    auto it = ranges_.find(name.substr(0, d));
    if (it == ranges_.end()) return -1;
    const int i = std::atoi(name.c_str() + d);
    return i < it->second.second ? it->second.first + i : -1;
  }
  int count() const { return next_; }
  void clear() { singles_.clear(); ranges_.clear(); predicate_.clear(); next_ = 0; }

 private:
  std::unordered_map<std::string, int> singles_;
  std::unordered_map<std::string, std::pair<int, int>> ranges_;
  std::vector<bool> predicate_;
  int next_ = 0;
};

// `[map, {c0, c1, ...}]` (cp.async.bulk.tensor): the tensor map's address (a register) and 1 to 5
// coordinates (registers).
bool parse_tensor_operand(const std::string& s, const Registers& regs, Operand& op) {
  const std::size_t comma = s.find(','), open = s.find('{'), close = s.rfind('}');
  if (s.back() != ']' || comma == std::string::npos || comma > open || close == std::string::npos || close < open ||
      trim(s.substr(close + 1, s.size() - close - 2)) != "")
    return false;
  op.kind = Operand::Kind::Tensor;
  op.reg = regs.find(trim(s.substr(1, comma - 1)));
  if (trim(s.substr(comma + 1, open - comma - 1)) != "" || op.reg < 0) return false;
  for (const std::string& e : split_operands(s.substr(open + 1, close - open - 1))) {
    if (op.count == 5) return false;
    const int r = regs.find(e);
    if (r < 0) return false;
    op.regs[op.count++] = r;
  }
  return op.count > 0;
}

// One operand's text -> Operand; names of labels, variables and params stay in `symbol`.
bool parse_operand(const std::string& text, const Registers& regs, Operand& op) {
  std::string s = trim(text);
  if (s.empty()) return false;
  if (s[0] == '{') {
    if (s.back() != '}') return false;
    op.kind = Operand::Kind::Vector;
    for (const std::string& e : split_operands(s.substr(1, s.size() - 2))) {
      if (op.count == 4) return false;
      const int r = e == "_" ? -1 : regs.find(e);
      if (r < 0 && e != "_") return false;
      op.regs[op.count++] = r;
    }
    return op.count > 0;
  }
  if (s[0] == '[' && s.find('{') != std::string::npos) return parse_tensor_operand(s, regs, op);
  if (s[0] == '[') {
    if (s.back() != ']') return false;
    op.kind = Operand::Kind::Address;
    std::string in = trim(s.substr(1, s.size() - 2));
    std::size_t plus = in.find_first_of("+-", 1);
    std::string base = trim(in.substr(0, plus));
    if (plus != std::string::npos) {
      std::string off = trim(in.substr(plus + (in[plus] == '+' ? 1 : 0)));
      if (!parse_number(off, op.imm)) return false;
    }
    std::int64_t absolute = 0;
    if (base[0] == '%') {
      op.reg = regs.find(base);
      if (op.reg < 0) return false;
    } else if (parse_number(base, absolute)) {
      op.imm += absolute;
    } else {
      op.symbol = base;
    }
    return true;
  }
  if (s[0] == '!') {
    op.negate = true;
    s = trim(s.substr(1));
  }
  if (s == "_") {
    op.kind = Operand::Kind::Sink;
    return !op.negate;
  }
  if (s[0] != '%' && regs.find(s) >= 0) {  // a register without % (inline asm's `.reg .pred p;`)
    op.reg = regs.find(s);
    op.kind = Operand::Kind::Reg;
    op.predicate = regs.predicate(op.reg);
    return true;
  }
  if (s[0] == '%' && s.find('|') != std::string::npos) {  // `%r|%p`: a value and a predicate (shfl, match.all)
    const std::size_t bar = s.find('|');
    op.kind = Operand::Kind::Reg;
    op.reg = regs.find(trim(s.substr(0, bar)));
    op.pred = regs.find(trim(s.substr(bar + 1)));
    return op.reg >= 0 && op.pred >= 0 && !op.negate;
  }
  if (s[0] == '%') {
    for (const SpecialName& n : kSpecials)
      if (s == n.name) {
        op.kind = Operand::Kind::Special;
        op.special = n.special;
        return true;
      }
    op.reg = regs.find(s);
    op.kind = Operand::Kind::Reg;
    op.predicate = regs.predicate(op.reg);
    return op.reg >= 0;
  }
  if (parse_number(s, op.imm)) {
    op.kind = Operand::Kind::Imm;
    return true;
  }
  if (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_' || s[0] == '$') {
    op.kind = Operand::Kind::Label;  // or a variable: resolved once the kernel is read
    op.symbol = s;
    return true;
  }
  return false;
}

std::uint32_t type_bytes(const std::string& t) {
  if (t == ".b8" || t == ".u8" || t == ".s8") return 1;
  if (t == ".b16" || t == ".u16" || t == ".s16" || t == ".f16") return 2;
  if (t == ".b32" || t == ".u32" || t == ".s32" || t == ".f32") return 4;
  if (t == ".b64" || t == ".u64" || t == ".s64" || t == ".f64") return 8;
  return 0;
}

std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return a ? (v + a - 1) / a * a : v; }

// `.shared .align 16 .b8 name[4096]` (or `.param .align 8 .b8 name[16]`, `.param .u64 name`):
// name, bytes, alignment; size 0 with dynamic = true for `name[]`.
void parse_variable(const std::string& decl, int line, std::string& name, std::uint32_t& size,
                    std::uint32_t& align, bool& dynamic) {
  std::istringstream in(decl);
  std::string tok;
  std::uint32_t elem = 0;
  align = 0;
  dynamic = false;
  std::vector<std::string> toks;
  while (in >> tok) toks.push_back(tok);
  for (std::size_t i = 0; i < toks.size(); ++i) {
    if (toks[i] == ".align" && i + 1 < toks.size()) align = static_cast<std::uint32_t>(std::atoi(toks[++i].c_str()));
    else if (type_bytes(toks[i])) elem = type_bytes(toks[i]);
  }
  if (toks.empty() || elem == 0) fail(line, "a variable declaration `" + decl + "`");
  std::string last = toks.back();
  if (!last.empty() && (last.back() == ';' || last.back() == ',')) last.pop_back();
  std::size_t br = last.find('[');
  name = last.substr(0, br);
  size = elem;
  if (br != std::string::npos) {
    const std::string n = last.substr(br + 1, last.find(']') - br - 1);
    if (n.empty()) {
      dynamic = true;
      size = 0;
    } else {
      size = elem * static_cast<std::uint32_t>(std::strtoul(n.c_str(), nullptr, 10));
    }
  }
  if (align == 0) align = elem;
  if (name.empty() || (align & (align - 1)) != 0) fail(line, "a variable declaration `" + decl + "`");
}

// `.global .align 4 .u32 n = 7;` / `.const .align 4 .b8 t[8] = {3, 0, 0, 0, 5};`: the variable
// and its initial bytes (each initializer element the declared type's bytes, little-endian).
ModuleVar parse_module_variable(const std::string& decl, int line) {
  ModuleVar v;
  v.space = decl.find(".const") != std::string::npos ? Space::Const : Space::Global;
  const std::size_t eq = decl.find('=');
  bool dynamic = false;
  std::string head = eq == std::string::npos ? decl : decl.substr(0, eq);
  parse_variable(head, line, v.name, v.size, v.align, dynamic);
  if (dynamic) fail(line, "a module variable without a size `" + decl + "`");
  std::uint32_t elem = 0;
  std::istringstream in(head);
  for (std::string tok; in >> tok;)
    if (type_bytes(tok)) elem = type_bytes(tok);
  if (eq == std::string::npos) return v;
  std::string init = trim(decl.substr(eq + 1));
  if (!init.empty() && init.back() == ';') init.pop_back();
  init = trim(init);
  if (!init.empty() && init[0] == '{') init = init.substr(1, init.rfind('}') == std::string::npos ? std::string::npos : init.rfind('}') - 1);
  for (const std::string& e : split_operands(init)) {
    std::int64_t x = 0;
    if (!parse_number(e, x)) fail(line, "an initializer `" + e + "`");
    for (std::uint32_t b = 0; b < elem; ++b) v.init.push_back(static_cast<unsigned char>(static_cast<std::uint64_t>(x) >> (8 * b)));
  }
  if (v.init.size() > v.size) fail(line, "an initializer longer than its variable");
  return v;
}

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
  bool in_comment = false, opened = false;
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
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    ++line_no;
    // Comments: // to the end of the line, /* ... */ across lines.
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
