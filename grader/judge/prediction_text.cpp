// The predictions as written (prediction_text.hpp): a tokenizer of C++ by hand (comments, string
// and character literals, raw strings, preprocessor lines, numbers, names, punctuation) and a walk
// of the file's namespace and class scopes that collects every declaration there. Every step is
// linear in the file's size except the floating names' closure, which follows at most
// kMaxHops names (a name defined through another, through another, ...).
#include "grader/prediction_text.hpp"

#include <cctype>
#include <set>
#include <vector>

namespace grader {
namespace as_written_scan {  // named: banklab_grader is one unity unit

constexpr int kMaxHops = 8;
constexpr std::size_t kMaxShown = 80;

enum class Kind { Ident, Number, Punct, Text };
struct Tok {
  Kind kind;
  std::size_t begin, end;
  bool floating = false;  // a Number: a floating literal
};
struct Macro {
  std::string name;
  std::size_t begin, end;  // its body in the source
};
struct Decl {
  std::string name;
  std::size_t init_b, init_e;  // its initializer (or a function's parameters and body): token indices
  bool typed_floating;         // declared with a floating type
  bool in_predict;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Whether the number s[b, e) is a floating literal: a '.', a decimal exponent, or a hex one.
bool floating_number(const std::string& s, std::size_t b, std::size_t e) {
  auto at = [&](std::size_t k) { return k < e ? s[k] : '\0'; };
  std::size_t i = b;
  if (at(i) == '.') return true;
  if (at(i) == '0' && (at(i + 1) == 'x' || at(i + 1) == 'X')) {
    for (i += 2; i < e && (std::isxdigit(static_cast<unsigned char>(s[i])) || s[i] == '\''); ++i) {
    }
    return at(i) == '.' || at(i) == 'p' || at(i) == 'P';
  }
  if (at(i) == '0' && (at(i + 1) == 'b' || at(i + 1) == 'B')) return false;
  while (i < e && (digit(s[i]) || s[i] == '\'')) ++i;
  if (at(i) == '.') return true;
  if (at(i) == 'e' || at(i) == 'E') {
    std::size_t k = i + 1;
    if (at(k) == '+' || at(k) == '-') ++k;
    return digit(at(k));
  }
  return false;
}

class Lexer {
 public:
  Lexer(const std::string& s, std::size_t b, std::size_t e) : s_(s), i_(b), e_(e) {}
  void run(std::vector<Tok>& out, std::vector<Macro>* macros) {
    bool line_start = true;
    while (i_ < e_) {
      const char c = s_[i_];
      if (c == '\n') { line_start = true; ++i_; continue; }
      if (std::isspace(static_cast<unsigned char>(c))) { ++i_; continue; }
      if (c == '/' && peek(1) == '/') { skip_line(); continue; }
      if (c == '/' && peek(1) == '*') { skip_block_comment(); continue; }
      if (c == '#' && line_start) { directive(macros); continue; }
      line_start = false;
      const std::size_t b = i_;
      if (c == '"' || c == '\'') { quoted(c); out.push_back({Kind::Text, b, i_}); continue; }
      if (digit(c) || (c == '.' && digit(peek(1)))) {
        while (i_ < e_ && (ident_char(s_[i_]) || s_[i_] == '.' ||
                           (s_[i_] == '\'' && i_ + 1 < e_ && ident_char(s_[i_ + 1])) ||
                           ((s_[i_] == '+' || s_[i_] == '-') && std::string("eEpP").find(s_[i_ - 1]) != std::string::npos)))
          ++i_;
        out.push_back({Kind::Number, b, i_, floating_number(s_, b, i_)});
        continue;
      }
      if (ident_start(c)) {
        while (i_ < e_ && ident_char(s_[i_])) ++i_;
        const std::string word = s_.substr(b, i_ - b);
        if (i_ < e_ && s_[i_] == '"' && !word.empty() && word.back() == 'R' && word.size() <= 3) {
          raw_string();
          out.push_back({Kind::Text, b, i_});
        } else {
          out.push_back({Kind::Ident, b, i_});
        }
        continue;
      }
      static const char* const kTwo[] = {"::", "==", "!=", "<=", ">=", "->", "&&", "||", "<<", ">>", "+=",
                                         "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--"};
      std::size_t n = 1;
      for (const char* two : kTwo)
        if (c == two[0] && peek(1) == two[1]) n = 2;
      i_ += n;
      out.push_back({Kind::Punct, b, i_});
    }
  }

 private:
  char peek(std::size_t k) const { return i_ + k < e_ ? s_[i_ + k] : '\0'; }
  void skip_line() {
    while (i_ < e_ && s_[i_] != '\n') i_ += (s_[i_] == '\\' && peek(1) == '\n') ? 2 : 1;
  }
  void skip_block_comment() {
    const std::size_t end = s_.find("*/", i_ + 2);
    i_ = end == std::string::npos || end + 2 > e_ ? e_ : end + 2;
  }
  void quoted(char q) {
    for (++i_; i_ < e_ && s_[i_] != q && s_[i_] != '\n'; ++i_)
      if (s_[i_] == '\\') ++i_;
    if (i_ < e_ && s_[i_] == q) ++i_;
  }
  void raw_string() {  // at the '"' of R"delim( ... )delim"
    const std::size_t open = s_.find('(', i_);
    if (open == std::string::npos || open >= e_ || open - i_ > 17) { quoted('"'); return; }
    const std::string close = ")" + s_.substr(i_ + 1, open - i_ - 1) + "\"";
    const std::size_t end = s_.find(close, open);
    i_ = end == std::string::npos || end + close.size() > e_ ? e_ : end + close.size();
  }
  // A preprocessor line (with its continuations); `#define NAME body` is kept as a macro.
  void directive(std::vector<Macro>* macros) {
    const std::size_t b = i_;
    skip_line();
    if (!macros) return;
    std::size_t k = b + 1;
    auto blanks = [&] { while (k < i_ && (s_[k] == ' ' || s_[k] == '\t')) ++k; };
    blanks();
    if (s_.compare(k, 6, "define") != 0) return;
    k += 6;
    blanks();
    const std::size_t nb = k;
    while (k < i_ && ident_char(s_[k])) ++k;
    if (k == nb) return;
    Macro m{s_.substr(nb, k - nb), k, i_};
    if (k < i_ && s_[k] == '(') {  // a function-like macro: its body after the parameters
      const std::size_t close = s_.find(')', k);
      m.begin = close == std::string::npos || close >= i_ ? i_ : close + 1;
    }
    macros->push_back(m);
  }

  const std::string& s_;
  std::size_t i_, e_;
};

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {
    Lexer(s, 0, s.size()).run(t_, &macros_);
    for (const Macro& m : macros_) {
      std::vector<Tok> body;
      Lexer(s, m.begin, m.end).run(body, nullptr);
      macro_tokens_.push_back(std::move(body));
    }
    std::size_t i = 0;
    walk(i, false);
    close_floating_names();
  }

  std::map<std::string, PredictionText> predictions() const {
    std::map<std::string, PredictionText> out;
    for (const Decl& d : decls_) {
      if (!d.in_predict) continue;
      PredictionText p{shown(d), floating_part(t_, d.init_b, d.init_e)};
      auto [it, fresh] = out.emplace(d.name, p);
      if (!fresh && it->second.floating.empty()) it->second = p;  // defined twice: a floating one is said
    }
    return out;
  }

 private:
  std::string text(const Tok& k) const { return s_.substr(k.begin, k.end - k.begin); }
  bool is(std::size_t i, const char* p) const { return i < t_.size() && t_[i].kind != Kind::Text && text(t_[i]) == p; }
  static bool opener(const std::string& p) { return p == "(" || p == "[" || p == "{"; }
  static bool closer(const std::string& p) { return p == ")" || p == "]" || p == "}"; }

  // From an opener, past its matching closer (every kind of bracket counted together).
  void skip_group(std::size_t& i) const {
    int depth = 0;
    for (; i < t_.size(); ++i) {
      if (t_[i].kind != Kind::Punct) continue;
      const std::string p = text(t_[i]);
      if (opener(p)) ++depth;
      if (closer(p) && --depth == 0) { ++i; return; }
    }
  }
  // The first token of [b, e) at bracket depth 0 that is one of `what`, else e.
  std::size_t find_top(std::size_t b, std::size_t e, std::initializer_list<const char*> what) const {
    for (std::size_t i = b; i < e;) {
      for (const char* w : what)
        if (is(i, w)) return i;
      if (t_[i].kind == Kind::Punct && opener(text(t_[i]))) skip_group(i); else ++i;
    }
    return e;
  }
  bool has_word(std::size_t b, std::size_t e, std::initializer_list<const char*> words) const {
    for (std::size_t i = b; i < e; ++i)
      for (const char* w : words)
        if (t_[i].kind == Kind::Ident && text(t_[i]) == w) return true;
    return false;
  }

  // One scope (the file, a namespace, a class) up to its closing brace.
  void walk(std::size_t& i, bool in_predict) {
    std::size_t stmt = i;
    while (i < t_.size()) {
      if (is(i, "}")) { ++i; return; }
      if (is(i, ";")) { statement(stmt, i, in_predict); stmt = ++i; continue; }
      if (is(i, "(") || is(i, "[")) { skip_group(i); continue; }
      if (!is(i, "{")) { ++i; continue; }
      const bool is_namespace = has_word(stmt, i, {"namespace"});
      if (is_namespace || has_word(stmt, i, {"struct", "class", "union", "enum"}) ||
          (has_word(stmt, i, {"extern"}) && i > stmt && t_[i - 1].kind == Kind::Text)) {
        const bool child_predict = is_namespace && i > stmt && is(i - 1, "predict");
        ++i;
        walk(i, child_predict);
        stmt = i;
        continue;
      }
      const bool in_init = find_top(stmt, i, {"="}) < i, has_params = find_top(stmt, i, {"("}) < i;
      skip_group(i);
      if (!in_init && has_params) {  // a function's definition: its body ends the statement
        statement(stmt, i, in_predict);
        stmt = i;
      }
    }
  }

  // A declaration at namespace or class scope, tokens [b, e): its declarators.
  void statement(std::size_t b, std::size_t e, bool in_predict) {
    if (is(b, "template") && is(b + 1, "<")) {  // past the template's parameters
      int depth = 0;
      for (++b; b < e; ++b) {
        if (is(b, "<")) ++depth;
        if (is(b, ">") && --depth == 0) { ++b; break; }
        if (is(b, ">>") && (depth -= 2) <= 0) { ++b; break; }
      }
    }
    if (b >= e || is(b, "using") || is(b, "typedef") || is(b, "static_assert")) return;
    std::size_t db = b;
    bool typed = false, first = true;
    while (db < e) {
      std::size_t de = db;  // the declarator ends at a ',' that a new declarator's name follows
      for (;;) {
        de = find_top(de, e, {","});
        if (de + 1 >= e || (t_[de + 1].kind == Kind::Ident && (is(de + 2, "=") || is(de + 2, "{") || is(de + 2, "(")))) break;
        ++de;
      }
      const std::size_t at = find_top(db, de, {"=", "{", "("});
      if (at < de && at > db && t_[at - 1].kind == Kind::Ident) {
        if (first) typed = has_word(db, at - 1, {"float", "double", "__half", "__nv_bfloat16", "_Float16", "__bf16"});
        decls_.push_back({text(t_[at - 1]), is(at, "=") ? at + 1 : at, de, typed, in_predict});
      }
      first = false;
      db = de + 1;
    }
  }

  // The floating part of tokens [b, e) of `toks` ("" when none).
  std::string floating_part(const std::vector<Tok>& toks, std::size_t b, std::size_t e) const {
    static const std::set<std::string> kTypes = {"float", "double", "__half", "__nv_bfloat16", "_Float16", "__bf16"};
    static const std::set<std::string> kMath = {
        "sqrt", "sqrtf", "cbrt", "pow", "powf", "exp", "exp2", "expf", "log", "logf", "log2", "log2f", "log10",
        "ceil", "ceilf", "floor", "floorf", "round", "roundf", "trunc", "truncf", "fabs", "fabsf", "fmod", "hypot",
        "ldexp", "fma", "sin", "cos", "tan", "rint", "nearbyint", "lround", "llround", "lrint", "llrint", "ilogb"};
    static const std::set<std::string> kUnevaluated = {"sizeof", "alignof", "decltype", "__alignof__"};
    auto word = [&](std::size_t i) { return i < e && toks[i].kind != Kind::Text ? text(toks[i]) : std::string(); };
    for (std::size_t i = b; i < e; ++i) {
      const Tok& k = toks[i];
      if (k.kind == Kind::Number && k.floating) return text(k);
      if (k.kind != Kind::Ident) continue;
      const std::string w = text(k);
      if (kUnevaluated.count(w) && word(i + 1) == "(") {  // sizeof(float) is an integer
        int depth = 0;
        for (++i; i < e; ++i) {
          const std::string p = word(i);
          if (p == "(") ++depth;
          if (p == ")" && --depth == 0) break;
        }
        continue;
      }
      if (kTypes.count(w) || (kMath.count(w) && word(i + 1) == "(")) return w;
      const std::string before = i > b ? word(i - 1) : std::string();
      if (floating_names_.count(w) && word(i + 1) != "::" && before != "." && before != "->") return w;
    }
    return "";
  }

  void close_floating_names() {
    for (int hop = 0; hop <= kMaxHops; ++hop) {
      bool changed = false;
      for (const Decl& d : decls_)
        if (!floating_names_.count(d.name) && (d.typed_floating || !floating_part(t_, d.init_b, d.init_e).empty()))
          changed = floating_names_.insert(d.name).second || changed;
      for (std::size_t m = 0; m < macros_.size(); ++m)
        if (!floating_names_.count(macros_[m].name) && !floating_part(macro_tokens_[m], 0, macro_tokens_[m].size()).empty())
          changed = floating_names_.insert(macros_[m].name).second || changed;
      if (!changed) return;
    }
  }

  std::string shown(const Decl& d) const {
    if (d.init_b >= d.init_e) return "";
    std::string out;
    for (std::size_t i = t_[d.init_b].begin; i < t_[d.init_e - 1].end && out.size() <= kMaxShown; ++i) {
      const unsigned char c = static_cast<unsigned char>(s_[i]);
      if (std::isspace(c)) {
        if (!out.empty() && out.back() != ' ') out += ' ';
      } else {
        out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
      }
    }
    if (out.size() > kMaxShown) out = out.substr(0, kMaxShown) + "...";
    return out;
  }

  const std::string& s_;
  std::vector<Tok> t_;
  std::vector<Macro> macros_;
  std::vector<std::vector<Tok>> macro_tokens_;
  std::vector<Decl> decls_;
  std::set<std::string> floating_names_;
};

}  // namespace as_written_scan

std::map<std::string, PredictionText> read_predictions(const std::string& source) {
  return as_written_scan::Reader(source).predictions();
}

}  // namespace grader
