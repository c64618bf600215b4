// The lexical pieces of the PTX reader (ptx_parse.cpp): trimming and splitting operands, numbers
// and float bits, special and declared registers, one operand, variable declarations. The text is
// the student's: what is malformed is an error naming its line (fail), never a crash.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "banklab_emu/ptx.hpp"

namespace banklab::emu::lex {

std::string trim(const std::string& s);
/// Throws the reader's error for PTX line `line`.
[[noreturn]] void fail(int line, const std::string& what);
std::vector<std::string> split_operands(const std::string& s);
/// A mnemonic's parts between its dots: "ld.shared.v4.f32" gives ld, shared, v4, f32.
std::vector<std::string> split_dots(const std::string& m);
bool parse_number(const std::string& s, std::int64_t& v);

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

bool parse_tensor_operand(const std::string& s, const Registers& regs, Operand& op);
bool parse_operand(const std::string& text, const Registers& regs, Operand& op);
std::uint32_t type_bytes(const std::string& t);
std::uint32_t align_up(std::uint32_t v, std::uint32_t a);
void parse_variable(const std::string& decl, int line, std::string& name, std::uint32_t& size,
                    std::uint32_t& align, bool& dynamic);
ModuleVar parse_module_variable(const std::string& decl, int line);

}  // namespace banklab::emu::lex
