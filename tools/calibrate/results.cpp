// Reading and writing what calibrate measures, and comparing it with the model.
#include "results.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace banklab::calibrate {
namespace {

const int kWidths[] = {1, 2, 4, 8, 16};

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      f.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  f.push_back(cur);
  return f;
}

double parse_value(const std::string& s, const std::string& what) {
  std::string t;
  for (char c : s)
    if (c != ',' && c != ' ') t += c;
  try {
    std::size_t used = 0;
    const double v = std::stod(t, &used);
    if (used == t.size()) return v;
  } catch (const std::exception&) {
  }
  throw std::runtime_error("ncu value '" + s + "' of " + what + " is not a number");
}

// True when `name` occurs in `text` not followed by a digit or `_` (so banklab_cal_st_w1 does not match
// banklab_cal_st_w16, nor banklab_cal_ldsm_x1 banklab_cal_ldsm_x1_trans), plain, mangled (`17banklab_cal_ld_w1E...`) or demangled alike.
bool names_kernel(const std::string& text, const std::string& name) {
  for (std::size_t pos = text.find(name); pos != std::string::npos; pos = text.find(name, pos + 1)) {
    const std::size_t end = pos + name.size();
    if (end >= text.size() || (!std::isdigit(static_cast<unsigned char>(text[end])) && text[end] != '_')) return true;
  }
  return false;
}

int width_of_opcode(const std::string& opcode) {
  std::stringstream ss(opcode);
  std::string part;
  std::getline(ss, part, '.');  // LDS / STS
  int w = 4;
  while (std::getline(ss, part, '.')) {
    if (part == "128") w = 16;
    else if (part == "64") w = 8;
    else if (part == "U8" || part == "S8" || part == "8") w = 1;
    else if (part == "U16" || part == "S16" || part == "16") w = 2;
  }
  return w;
}

}  // namespace

// What the H200 showed (common/data/README.md): LDSM's wavefronts and conflicts count with the
// loads (op_ld), STSM's with the stores (op_st); ATOMS has its own op_atom counters; LDGSTS has
// only a bank-conflict counter, its wavefronts are the shared total minus every other kind's.
OpMetrics metrics_for(Op op) {
  switch (op) {
    case Op::Load: return {kMetricWavefrontsLd, kMetricConflictsLd, kMetricInstLd};
    case Op::Store: return {kMetricWavefrontsSt, kMetricConflictsSt, kMetricInstSt};
    case Op::LoadMatrix: return {kMetricWavefrontsLd, kMetricConflictsLd, "smsp__inst_executed_op_ldsm.sum"};
    case Op::StoreMatrix: return {kMetricWavefrontsSt, kMetricConflictsSt, "smsp__inst_executed_op_shared_stsm.sum"};
    case Op::AsyncCopy:
      return {kMetricWavefrontsShared, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
              "smsp__inst_executed_op_ldgsts.sum"};
    case Op::Atomic:
    case Op::AtomicIncrement:
    case Op::AtomicCas:
    case Op::AtomicExchange:
    case Op::AtomicCasLoop:
      return {kMetricWavefrontsAtom, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
              "smsp__inst_executed_op_shared_atom.sum"};
  }
  return {kMetricWavefrontsLd, kMetricConflictsLd, kMetricInstLd};
}

std::string metric_list() {
  return std::string(kMetricWavefrontsLd) + "," + kMetricWavefrontsSt + "," + kMetricConflictsLd + "," +
         kMetricConflictsSt + "," + kMetricInstLd + "," + kMetricInstSt;
}

std::string metric_list(const std::vector<Pattern>& patterns) {
  std::string s = metric_list();
  for (Op op : kAllOps) {
    if (op == Op::Load || op == Op::Store) continue;
    if (std::none_of(patterns.begin(), patterns.end(), [&](const Pattern& p) { return p.access.op == op; })) continue;
    const OpMetrics m = metrics_for(op);
    for (const char* name : {m.wavefronts, m.conflicts, m.instructions})
      if (s.find(name) == std::string::npos) s += std::string(",") + name;
    if (op == Op::AsyncCopy)
      for (const char* name : kOtherSharedWavefronts)
        if (s.find(name) == std::string::npos) s += std::string(",") + name;
  }
  return s;
}

std::string kernel_name(Op op, int width) {
  return std::string("banklab_cal_") + to_string(op) + "_w" + std::to_string(width);
}

std::string kernel_name(const AtomOpKind& k) { return kernel_name(Op::Atomic, k.width) + "_" + k.variant; }

std::string kernel_name(const Pattern& p) {
  const std::string var = variant_of(p.id);
  const WarpAccess& a = p.access;
  if (a.op == Op::LoadMatrix || a.op == Op::StoreMatrix) {
    const int x = a.mask == 0xffu ? 1 : a.mask == 0xffffu ? 2 : 4;
    return std::string("banklab_cal_") + to_string(a.op) + "_x" + std::to_string(x) + (var == "trans" ? "_trans" : "");
  }
  if (a.op == Op::AsyncCopy) return kernel_name(a.op, a.width) + (var == "cg" ? "_cg" : "");
  if (a.op == Op::Atomic) return kernel_name(a.op, a.width) + (var.empty() ? "" : "_" + var);  // red, exch, ...
  if (a.op == Op::AtomicIncrement) return kernel_name(Op::Atomic, a.width) + "_red";  // red.shared.add.u32 [p], 1
  if (a.op == Op::AtomicCas || a.op == Op::AtomicExchange || a.op == Op::AtomicCasLoop)  // family atomop
    return kernel_name(Op::Atomic, a.width) + "_" + var;
  return kernel_name(a.op, a.width);
}

std::vector<std::string> all_kernel_names() {
  std::vector<std::string> v;
  for (Op op : {Op::Load, Op::Store})
    for (int w : kWidths) v.push_back(kernel_name(op, w));
  for (const char* m : {"ldsm", "stsm"})
    for (const char* t : {"", "_trans"})
      for (int x : {1, 2, 4}) v.push_back(std::string("banklab_cal_") + m + "_x" + std::to_string(x) + t);
  for (const char* n : {"cpasync_w4", "cpasync_w8", "cpasync_w16", "cpasync_w16_cg", "atom_w4", "atom_w8",
                        "atom_w4_red", "atom_w8_red"})
    v.push_back(std::string("banklab_cal_") + n);
  for (const AtomOpKind& k : kAtomOpKinds) v.push_back(kernel_name(k));
  return v;
}

void write_measurements_csv(std::ostream& out, const std::vector<Measurement>& rows) {
  out << "id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions,gpu\n";
  for (const Measurement& m : rows) {
    std::string gpu = m.gpu.empty() ? "unknown" : m.gpu;  // an empty last field would not read back
    std::replace(gpu.begin(), gpu.end(), ',', ' ');
    char mask[16];
    std::snprintf(mask, sizeof mask, "%08x", m.access.mask);
    out << m.id << ',' << to_string(m.access.op) << ',' << m.access.width << ',' << mask << ',';
    for (int i = 0; i < kWarpSize; ++i) out << (i ? " " : "") << m.access.offset[static_cast<std::size_t>(i)];
    out << ',' << m.wavefronts << ',' << m.bank_conflicts << ',' << m.instructions << ',' << gpu << '\n';
  }
}

std::vector<NcuLaunch> parse_ncu_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  int c_id = -1, c_kernel = -1, c_metric = -1, c_value = -1;
  std::size_t ncols = 0;
  std::map<long, NcuLaunch> by_id;
  long n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] != '"') continue;
    const std::vector<std::string> f = split_csv_line(line);
    if (c_id < 0) {
      for (std::size_t i = 0; i < f.size(); ++i) {
        if (f[i] == "ID") c_id = static_cast<int>(i);
        else if (f[i] == "Kernel Name") c_kernel = static_cast<int>(i);
        else if (f[i] == "Metric Name") c_metric = static_cast<int>(i);
        else if (f[i] == "Metric Value") c_value = static_cast<int>(i);
      }
      if (c_id < 0 || c_kernel < 0 || c_metric < 0 || c_value < 0)
        throw std::runtime_error("ncu output line " + std::to_string(n) +
                                 ": expected a CSV header with ID, Kernel Name, Metric Name, Metric Value");
      ncols = f.size();
      continue;
    }
    if (f.size() != ncols) {
      if (f.size() > 1 && f[0] == "ID") continue;  // a repeated header
      throw std::runtime_error("ncu output line " + std::to_string(n) + ": " + std::to_string(f.size()) +
                               " fields, the header has " + std::to_string(ncols));
    }
    long id = 0;
    try {
      id = std::stol(f[static_cast<std::size_t>(c_id)]);
    } catch (const std::exception&) {
      throw std::runtime_error("ncu output line " + std::to_string(n) + ": ID '" +
                               f[static_cast<std::size_t>(c_id)] + "' is not a number");
    }
    NcuLaunch& l = by_id[id];
    l.id = id;
    l.kernel = f[static_cast<std::size_t>(c_kernel)];
    const std::string& metric = f[static_cast<std::size_t>(c_metric)];
    l.metrics[metric] = parse_value(f[static_cast<std::size_t>(c_value)], metric);
  }
  if (c_id < 0) throw std::runtime_error("no ncu CSV output found (no line starting with '\"ID\"')");
  std::vector<NcuLaunch> v;
  for (auto& [id, l] : by_id) v.push_back(std::move(l));
  return v;
}

std::vector<Measurement> to_measurements(const std::vector<Pattern>& patterns,
                                         const std::vector<NcuLaunch>& launches, const std::string& gpu) {
  if (launches.size() != patterns.size())
    throw std::runtime_error("ncu profiled " + std::to_string(launches.size()) + " kernel launches, expected " +
                             std::to_string(patterns.size()) + " (one per pattern)");
  std::vector<Measurement> rows;
  for (std::size_t k = 0; k < patterns.size(); ++k) {
    const Pattern& p = patterns[k];
    const NcuLaunch& l = launches[k];
    const std::string want = kernel_name(p);
    if (!names_kernel(l.kernel, want))
      throw std::runtime_error("launch " + std::to_string(l.id) + " ran '" + l.kernel + "', expected " + want +
                               " for pattern " + p.id);
    const bool ld = p.access.op == Op::Load;
    const bool lds_sts = p.access.op == Op::Load || p.access.op == Op::Store;
    const OpMetrics mine = metrics_for(p.access.op);
    auto get = [&](const char* metric) {
      auto it = l.metrics.find(metric);
      if (it == l.metrics.end())
        throw std::runtime_error("launch " + std::to_string(l.id) + " (" + p.id + "): ncu reported no " + metric);
      return static_cast<int>(std::llround(it->second));
    };
    Measurement m;
    m.id = p.id;
    m.access = p.access;
    m.wavefronts = get(mine.wavefronts);
    if (p.access.op == Op::AsyncCopy)  // LDGSTS: the shared total minus every other kind
      for (const char* name : kOtherSharedWavefronts) m.wavefronts -= get(name);
    m.bank_conflicts = get(mine.conflicts);
    m.instructions = get(mine.instructions);
    // The other op's counters must be silent: the kernel runs one instruction and nothing else.
    const int other = lds_sts ? get(ld ? kMetricWavefrontsSt : kMetricWavefrontsLd) + get(ld ? kMetricInstSt : kMetricInstLd) : 0;
    if (other != 0)
      throw std::runtime_error("launch " + std::to_string(l.id) + " (" + p.id + "): the kernel also ran " +
                               (ld ? "shared stores" : "shared loads"));
    m.gpu = gpu;
    m.line = static_cast<long>(k) + 2;
    rows.push_back(std::move(m));
  }
  return rows;
}

std::vector<SassKernel> parse_sass(const std::string& text) {
  std::vector<SassKernel> v;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto f = line.find("Function : ");
    if (f != std::string::npos) {
      SassKernel k;
      k.name = line.substr(f + 11);
      k.name.erase(k.name.find_last_not_of(" \t\r") + 1);
      v.push_back(k);
      continue;
    }
    if (v.empty()) continue;
    // An instruction line: /*0080*/  @!P0 LDS.64 R2, [R0] ;
    const auto close = line.find("*/");
    if (close == std::string::npos || line.find("/*") > close) continue;
    std::istringstream toks(line.substr(close + 2));
    std::string t;
    bool never = false;
    while (toks >> t) {
      if (t == "@!PT") never = true;  // predicated off for good: padding, never executed
      if (t[0] == '@' || t == "{" || t == "}") continue;  // predicate, dual-issue braces
      if (never) break;
      if (!t.empty() && t.back() == ';') t.pop_back();
      const std::string base = t.substr(0, t.find('.'));
      if (base == "LDS" || base == "STS" || base == "LDSM" || base == "STSM" || base == "LDGSTS" ||
          base == "ATOMS" || base == "ATOM" || base == "RED")
        v.back().shared.push_back(t);
      break;  // only the opcode
    }
  }
  return v;
}

std::vector<std::string> check_sass(const std::vector<SassKernel>& kernels) {
  std::vector<std::string> problems;
  for (const std::string& name : all_kernel_names()) {
    auto it = std::find_if(kernels.begin(), kernels.end(),
                           [&](const SassKernel& k) { return names_kernel(k.name, name); });
    if (it == kernels.end()) {
      problems.push_back(name + ": not found in the SASS listing");
      continue;
    }
    std::string list;
    for (const auto& s : it->shared) list += " " + s;
    // The shared atomics of the family atomop: one ATOMS of the kind's operation, or a
    // compare-and-swap loop (LDS of the width, then ATOMS.CAST.SPIN; the 64-bit min first stores
    // its word: STS.64).
    const auto aok = std::find_if(std::begin(kAtomOpKinds), std::end(kAtomOpKinds), [&](const AtomOpKind& k) {
      return name == kernel_name(k);
    });
    if (aok != std::end(kAtomOpKinds)) {
      const std::string lds = aok->width == 8 ? "LDS.64" : "LDS";
      std::vector<std::string> want;
      if (std::string(aok->sass) == "loop") {
        if (name == "banklab_cal_atom_w8_min") want.push_back("STS.64");
        want.push_back(lds);
        want.push_back("ATOMS.CAST.SPIN");
      } else {
        want.push_back(aok->sass);
      }
      bool good = it->shared.size() == want.size();
      for (std::size_t i = 0; good && i < want.size(); ++i) {
        const std::string& got = it->shared[i];
        good = want[i].rfind("LDS", 0) == 0 || want[i].rfind("STS", 0) == 0
                   ? got == want[i]
                   : got.rfind(want[i], 0) == 0 && (got.size() == want[i].size() || got[want[i].size()] == '.');
        // a 64-bit ATOMS names its width (.64); a 32-bit one does not
        if (good && want[i].rfind("ATOMS", 0) == 0) good = (got.find(".64") != std::string::npos) == (aok->width == 8);
      }
      if (!good) {
        std::string w;
        for (const auto& x : want) w += " " + x;
        problems.push_back(name + ": runs" + list + ", expected" + w);
      }
      continue;
    }
    // 64-bit shared atomics compile to LDS.64 and a compare-and-swap loop (ATOMS.CAST.SPIN.64).
    const bool cas64 = name.find("_atom_w8") != std::string::npos && it->shared.size() == 2 &&
                       it->shared[0] == "LDS.64" && it->shared[1].rfind("ATOMS.CAST", 0) == 0;
    if (cas64) continue;
    if (it->shared.size() != 1) {
      problems.push_back(name + ": " + std::to_string(it->shared.size()) +
                         " shared-memory instructions (expected exactly one):" + list);
      continue;
    }
    const std::string& opc = it->shared[0];
    const std::string base = opc.substr(0, opc.find('.'));
    const std::string kind = name.substr(std::string("banklab_cal_").size(), name.find('_', 12) - 12);
    std::string want;
    if (kind == "ld" || kind == "st") {
      const int w = std::stoi(name.substr(name.rfind("_w") + 2));
      if (base != (kind == "ld" ? "LDS" : "STS") || width_of_opcode(opc) != w)
        problems.push_back(name + ": runs " + opc + ", expected a " + std::to_string(w * 8) + "-bit " +
                           (kind == "ld" ? "LDS" : "STS"));
      continue;
    }
    want = kind == "ldsm" ? "LDSM" : kind == "stsm" ? "STSM" : kind == "cpasync" ? "LDGSTS" : "ATOMS";
    if (base != want) problems.push_back(name + ": runs " + opc + ", expected " + want);
  }
  return problems;
}

int compare_with_model(const std::vector<Measurement>& rows, std::ostream& out) {
  int differ = 0, unchecked = 0;
  for (const Measurement& m : rows) {
    if (m.access.op == Op::AsyncCopy && variant_of(m.id) == "cg") {
      ++unchecked;
      // No counter of the H200 sees where cp.async.cg writes shared memory (common/data/README.md).
      out << "NOT CHECKED " << m.id << ": cp.async.cg; ncu counts no shared-memory wavefront for it ("
          << m.wavefronts << " measured)\n";
      continue;
    }
    const Analysis a = analyze(m.access);
    const Counters c = expected_counters(m.access);  // the one comparison rule (banklab/model.hpp)
    if (c == Counters{m.wavefronts, m.bank_conflicts, m.instructions}) continue;
    ++differ;
    out << "DIFFER " << m.id << " (line " << m.line << "): measured " << m.wavefronts << " wavefronts, "
        << m.bank_conflicts << " bank conflicts, " << m.instructions << " instruction(s); model "
        << c.wavefronts << " wavefronts, " << c.bank_conflicts << " bank conflicts, " << c.instructions
        << " instruction(s) (minimum " << a.minimum << ")\n";
    out << "  pattern: " << format_access_line(m.access) << "\n";
    out << "  model: " << to_string(a.grouping) << (a.merged ? " (merged)" : "") << ": " << a.why << "\n";
    for (const Group& g : a.groups) {
      if (g.active == 0) continue;
      char active[16];
      std::snprintf(active, sizeof active, "%08x", g.active);
      out << "    lanes " << g.first_lane << "-" << g.first_lane + g.lane_count - 1 << " (active " << active
          << "): " << g.wavefronts << " wavefront(s), " << g.distinct_words << " distinct word(s), minimum "
          << g.minimum;
      if (g.worst_bank >= 0) out << ", bank " << g.worst_bank << " needs " << g.wavefronts << " distinct words";
      out << "\n";
    }
    if (m.instructions != c.instructions)
      out << "  the kernel executed " << m.instructions << " shared instructions, the model says " << c.instructions << "\n";
  }
  out << rows.size() - static_cast<std::size_t>(differ + unchecked) << "/" << rows.size() - static_cast<std::size_t>(unchecked)
      << " patterns match";
  if (unchecked) out << " (" << unchecked << " cp.async.cg patterns not checked: no counter sees their writes)";
  out << "\n";
  return differ;
}

}  // namespace banklab::calibrate
