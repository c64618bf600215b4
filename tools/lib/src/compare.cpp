// `banklab compare`: every measured pattern against the model.
#include "banklab_cli/compare.hpp"

#include "banklab/describe.hpp"

namespace banklab::cli {

CompareResult compare_measurements(const std::vector<Measurement>& rows) {
  CompareResult res;
  res.total = static_cast<int>(rows.size());
  for (const Measurement& m : rows) {
    const Analysis r = analyze(m.access);
    const Counters c = expected_counters(m.access);  // what ncu should read: the one comparison rule
    const bool same = c == Counters{m.wavefronts, m.bank_conflicts, m.instructions};
    if (same) {
      ++res.matched;
      continue;
    }
    std::string& o = res.report;
    o += "DIFFERS " + m.id + " (line " + std::to_string(m.line) + ")";
    if (!m.gpu.empty()) o += " on " + m.gpu;
    o += ": " + format_access_line(m.access) + "\n";
    o += "  measured:  " + std::to_string(m.wavefronts) + " wavefronts, " +
         std::to_string(m.bank_conflicts) + " bank_conflicts, " + std::to_string(m.instructions) + " instructions\n";
    o += "  predicted: " + std::to_string(c.wavefronts) + " wavefronts, " +
         std::to_string(c.bank_conflicts) + " bank_conflicts, " + std::to_string(c.instructions) +
         " instructions (minimum " + std::to_string(r.minimum) + ")\n";
    o += "  model: groups=" + std::string(to_string(r.grouping)) + " merged=" + (r.merged ? "yes" : "no") +
         ": " + r.why + "\n";
    for (std::size_t g = 0; g < r.groups.size(); ++g) {
      const Group& gr = r.groups[g];
      o += "    " + group_lanes(gr) + ": " + std::to_string(gr.wavefronts) +
           " wavefronts, minimum " + std::to_string(gr.minimum) + ", " +
           std::to_string(gr.distinct_words) + " distinct words";
      if (gr.worst_bank >= 0 && gr.wavefronts > 0) o += ", worst bank " + std::to_string(gr.worst_bank);
      o += "\n";
    }
    if (r.wavefronts != m.wavefronts)
      o += "  the model is off by " + std::to_string(r.wavefronts - m.wavefronts) +
           " wavefronts (predicted - measured)\n";
    else if (c.bank_conflicts != m.bank_conflicts)
      o += "  same wavefronts, but the bank-conflict counter differs from wavefronts - minimum\n";
    else
      o += "  same wavefronts, but not the instructions executed (a CAS loop's passes)\n";
    o += "  draw it: " + explain_command(m.access) + "\n";
  }
  res.report += std::to_string(res.matched) + "/" + std::to_string(res.total) + " patterns match\n";
  return res;
}

}  // namespace banklab::cli
