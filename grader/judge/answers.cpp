// Reads the probe's answers file strictly: a file that is short, garbled or from another lab is
// rejected as a whole, with a reason a student can act on.
#include "grader/answers.hpp"

#include "banklab/pattern_io.hpp"
#include "clean_text.hpp"

#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace grader {
namespace {

constexpr std::size_t kMaxAnswersBytes = 16u << 20;  // the six labs need well under 1 MiB
constexpr long long kMaxEntries = 1 << 20;

// A whole decimal integer (an optional '-' and digits, nothing else, within long long).
bool read_integer(const std::string& token, long long& v) {
  std::size_t used = 0;
  if (token.empty() || token.size() > 20) return false;
  try {
    v = std::stoll(token, &used, 10);
  } catch (const std::exception&) {
    return false;
  }
  return used == token.size();
}

long long box_size(const std::vector<int>& dims) {
  long long n = 1;
  for (int d : dims) {
    if (d <= 0 || d > 65536) return -1;
    n *= d;
    if (n > kMaxEntries) return -1;
  }
  return n;
}

int flat_index(const std::vector<int>& dims, std::initializer_list<int> idx, bool* inside) {
  *inside = idx.size() == dims.size();
  if (!*inside) return 0;
  long long flat = 0;
  std::size_t k = 0;
  for (int i : idx) {
    if (i < 0 || i >= dims[k]) {
      *inside = false;
      return 0;
    }
    flat = flat * dims[k] + i;
    ++k;
  }
  return static_cast<int>(flat);
}

// "call NAME STATUS NBUF BYTES... NLAUNCH" and its NLAUNCH "L ..." lines (grader/probe/probe_runtime.cpp).
std::optional<std::string> read_call(std::istream& is, const std::string& name, LauncherCall& c) {
  const std::string garbled = "the answers file is garbled at the launcher call " + name;
  int nbuf = -1, nlaunch = -1;
  if (!(is >> c.status) || (c.status != "ok" && c.status != "crashed" && c.status != "hung" && c.status != "exited"))
    return garbled;
  if (!(is >> nbuf) || nbuf < 0 || nbuf > 8) return garbled;
  c.name = name;
  c.buffer_bytes.resize(static_cast<std::size_t>(nbuf));
  for (auto& b : c.buffer_bytes)
    if (!(is >> b) || b > (1ull << 40)) return garbled;
  if (!(is >> nlaunch) || nlaunch < 0 || nlaunch > 64) return garbled;
  constexpr unsigned long long kMax32 = 0xffffffffull;
  for (int i = 0; i < nlaunch; ++i) {
    Launch l;
    std::string tag;
    long long nargs = 0;
    if (!(is >> tag >> l.api >> l.kernel) || tag != "L" || (l.api != "launch" && l.api != "ex" && l.api != "cooperative"))
      return garbled;
    if (l.kernel.size() > 1024) return garbled;
    for (auto* v : {&l.grid[0], &l.grid[1], &l.grid[2], &l.block[0], &l.block[1], &l.block[2]})
      if (!(is >> *v) || *v > kMax32) return garbled;
    if (!(is >> l.shared) || l.shared > kMax32 || !(is >> nargs) || nargs < -1 || nargs > 64) return garbled;
    l.args_known = nargs >= 0;
    for (long long a = 0; a < nargs; ++a) {
      std::string k;
      LaunchArg arg;
      if (!(is >> k)) return garbled;
      if (k == "p") {
        arg.kind = LaunchArg::Kind::Pointer;
        if (!(is >> arg.buffer >> arg.value) || arg.buffer < 0 || arg.buffer >= nbuf) return garbled;
      } else if (k == "i") {
        arg.kind = LaunchArg::Kind::Integer;
        if (!(is >> arg.value)) return garbled;
      } else if (k == "z") {
        arg.kind = LaunchArg::Kind::Null;
      } else if (k == "q") {
        arg.kind = LaunchArg::Kind::Foreign;
      } else if (k == "?") {
        arg.kind = LaunchArg::Kind::Unknown;
      } else {
        return garbled;
      }
      l.args.push_back(arg);
    }
    c.launches.push_back(std::move(l));
  }
  return std::nullopt;
}

}  // namespace

std::string Launch::describe() const {
  std::string s = kernel + "<<<(" + std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " +
                  std::to_string(grid[2]) + "), (" + std::to_string(block[0]) + ", " + std::to_string(block[1]) + ", " +
                  std::to_string(block[2]) + ")";
  if (shared) s += ", " + std::to_string(shared);
  return s + ">>>";
}

std::optional<std::string> Launch::invalid() const {
  if (kernel == "?") return "it launches a function that is not a kernel of your file";
  if (api == "ex") return "it launches " + kernel + " with cudaLaunchKernelEx: launch it with <<<>>> as the handout does";
  if (api == "cooperative")
    return "it launches " + kernel + " as a cooperative kernel: launch it with <<<>>> as the handout does";
  const unsigned long long threads = block[0] * block[1] * block[2];
  if (block[0] == 0 || block[1] == 0 || block[2] == 0 || block[0] > 1024 || block[1] > 1024 || block[2] > 64 ||
      threads > 1024)
    return "its block (" + std::to_string(block[0]) + ", " + std::to_string(block[1]) + ", " + std::to_string(block[2]) +
           ") is not a block a GPU can run: at most 1024 threads, z at most 64, none 0";
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || grid[0] > 0x7fffffffull || grid[1] > 65535 || grid[2] > 65535)
    return "its grid (" + std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " + std::to_string(grid[2]) +
           ") is not a grid a GPU can run: every dimension at least 1, x below 2^31, y and z at most 65535";
  if (shared > 227u * 1024u)
    return "it asks for " + std::to_string(shared) + " bytes of dynamic shared memory, more than an SM has (227 KiB)";
  if (!args_known) return "it launches " + kernel + ", a kernel the lab does not know: keep the handout's kernels";
  for (const LaunchArg& a : args) {
    if (a.kind == LaunchArg::Kind::Foreign)
      return "it passes " + kernel + " a pointer that is none of the launcher's own arguments (a pointer of its own?)";
    if (a.kind == LaunchArg::Kind::Unknown) return "it passes " + kernel + " an argument the grader cannot replay";
  }
  return std::nullopt;
}

std::optional<long long> Table::at(std::initializer_list<int> idx) const {
  bool inside = false;
  const int f = flat_index(dims, idx, &inside);
  if (!inside) return std::nullopt;
  return values[static_cast<std::size_t>(f)];
}

long long Table::operator()(std::initializer_list<int> idx) const {
  const auto v = at(idx);
  if (!v) throw std::out_of_range("grader: " + name + " looked up outside the box the probe evaluated");
  return *v;
}

int AccessTable::flat(std::initializer_list<int> idx) const {
  bool inside = false;
  const int f = flat_index(dims, idx, &inside);
  if (!inside) throw std::out_of_range("grader: instruction of " + name + " outside its box");
  return f;
}

std::optional<std::string> Answers::load(const std::string& path, const std::string& lab) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "there are no answers from your file (" + path + "): the lab did not build, or its probe did not run";
  std::string text;
  {
    std::ostringstream os;
    os << in.rdbuf();
    text = os.str();
  }
  if (text.size() > kMaxAnswersBytes) return "the answers file is over 16 MiB: something in your file printed into it";
  // Only text a terminal shows as it is (clean_text.hpp): no word of the probe's that a message
  // quotes (a name, a lab, a kernel) carries an escape sequence or a control character.
  if (!judge::is_clean(text))
    return "the answers file holds bytes that are no text (a control character, an escape sequence, a byte that is "
           "not UTF-8): something in your file wrote into it";
  std::istringstream is(text);
  std::string magic, kw;
  int version = 0;
  std::string file_lab;
  if (!(is >> magic >> version >> kw >> file_lab) || magic != "banklab-answers" || kw != "lab")
    return "the answers file does not start with the probe's header: something in your file wrote over it";
  if (version != 1) return "the answers file has format version " + std::to_string(version) + ", expected 1";
  if (file_lab != lab) return "the answers file is for lab " + file_lab + ", not lab " + lab;

  int records = 0;
  std::string pending;  // last "begin NAME" not yet followed by its record
  for (;;) {
    std::string kind;
    if (!(is >> kind)) {
      if (!pending.empty())
        return "your file's probe stopped while it evaluated " + pending +
               " for every argument (it crashed or never finished there: look for a division by "
               "zero, an endless loop or an out-of-range index in " + pending + ")";
      return "the answers file ends early: the probe was killed or crashed before it finished";
    }
    if (kind == "end") {
      int n = -1;
      if (!(is >> n) || n != records) return "the answers file's record count does not match: it was written over";
      std::string extra;
      if (is >> extra) return "the answers file has text after its end: something in your file wrote into it";
      // The predictions as written: the build keeps the file it compiled beside the answers.
      const std::size_t slash = path.find_last_of('/');
      std::ifstream src(slash == std::string::npos ? "source.cu" : path.substr(0, slash + 1) + "source.cu", std::ios::binary);
      if (src) {
        std::ostringstream os;
        os << src.rdbuf();
        as_written_ = read_predictions(os.str());
      }
      loaded_ = true;
      return std::nullopt;
    }
    std::string name;
    if (!(is >> name)) return "the answers file is cut off after '" + kind + "'";
    if (kind == "begin") {
      pending = name;
      continue;
    }
    if (kind == "value" || kind == "predict") {
      std::string token;
      if (!(is >> token)) return "the answers file has no number for " + name;
      if (kind == "predict" && token == "not-integer") {  // the probe's record of a float, a double, ...
        not_integer_.insert(name);
        ++records;
        continue;
      }
      long long v = 0;
      if (!read_integer(token, v)) return "the answers file has no number for " + name;
      (kind == "value" ? values_ : predictions_)[name] = v;
      ++records;
      continue;
    }
    if (kind == "call") {
      LauncherCall c;
      if (auto err = read_call(is, name, c)) return err;
      calls_[name] = std::move(c);
      ++records;
      continue;
    }
    if (kind != "table" && kind != "access") return "the answers file has an unknown record '" + kind + "'";
    std::string op;
    int width = 0, rank = 0;
    if (kind == "access" && !(is >> op >> width)) return "the answers file is garbled at " + name;
    if (!(is >> rank) || rank < 1 || rank > 4) return "the answers file is garbled at " + name;
    std::vector<int> dims(static_cast<std::size_t>(rank));
    for (int& d : dims)
      if (!(is >> d)) return "the answers file is garbled at " + name;
    long long n = box_size(dims);
    if (n < 0) return "the answers file gives " + name + " an impossible size";
    if (kind == "access") n *= 32;
    std::vector<long long> v(static_cast<std::size_t>(n));
    for (long long& x : v)
      if (!(is >> x)) return "your file's probe stopped while it evaluated " + name + " (cut off)";
    if (kind == "table") {
      tables_[name] = Table{name, std::move(dims), std::move(v)};
    } else {
      banklab::Op parsed_op = banklab::Op::Load;
      if (banklab::parse_op(op, parsed_op) || !banklab::is_legal_width(parsed_op, width))
        return "the answers file is garbled at " + name;
      AccessTable a;
      a.name = name;
      a.op = parsed_op;
      a.width = width;
      a.dims = std::move(dims);
      a.offsets = std::move(v);
      accesses_[name] = std::move(a);
    }
    pending.clear();
    ++records;
  }
}

namespace {
template <class M>
const typename M::mapped_type& find_or_throw(const M& m, const std::string& name, const char* what) {
  auto it = m.find(name);
  if (it == m.end()) throw std::runtime_error(std::string("grader: the answers have no ") + what + " '" + name + "'");
  return it->second;
}
}  // namespace

long long Answers::value(const std::string& name) const { return find_or_throw(values_, name, "value"); }
long long Answers::prediction(const std::string& name) const { return find_or_throw(predictions_, name, "prediction"); }
const Table& Answers::table(const std::string& name) const { return find_or_throw(tables_, name, "table"); }
const AccessTable& Answers::access(const std::string& name) const { return find_or_throw(accesses_, name, "access table"); }

const PredictionText* Answers::as_written(const std::string& name) const {
  auto it = as_written_.find(name);
  return it == as_written_.end() ? nullptr : &it->second;
}

const LauncherCall* Answers::call(const std::string& name) const {
  auto it = calls_.find(name);
  return it == calls_.end() ? nullptr : &it->second;
}

Answers& answers() {
  static Answers a;
  return a;
}

}  // namespace grader
