// The lexical pieces of the PTX reader (ptx_lex.hpp), split out of ptx_parse.cpp.
#include "ptx_lex.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "banklab_trace/format.hpp"

namespace banklab::emu::lex {

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
    {"%lanemask_ge", Special::LanemaskGe}, {"%clock64", Special::Clock64}, {"%clock", Special::Clock},
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

std::vector<std::string> split_dots(const std::string& m) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : m) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

}  // namespace banklab::emu::lex
