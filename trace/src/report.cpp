// banklab trace's report of a traced run (text, csv, json; write_report), beside trace.cpp's
// merge, file, decode and aggregate.
#include <ios>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "banklab/pattern_io.hpp"
#include "banklab_trace/trace.hpp"

#include <nlohmann/json.hpp>

namespace banklab::trace {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) { if (c == '"') o += '"'; o += c; }
  return o + "\"";
}

std::string where(const LineReport& l) {
  if (l.line > 0) return l.file + ":" + std::to_string(l.line);
  char b[32];
  std::snprintf(b, sizeof b, "pc 0x%llx", static_cast<unsigned long long>(l.pc));
  return std::string("(no -lineinfo) ") + b;
}

}  // namespace

std::string traffic_text(const Traffic& t) {
  std::ostringstream o;
  o << traffic_name(t.kind) << " at ";
  if (t.line > 0) o << t.file << ":" << t.line;
  else o << "(no -lineinfo) pc 0x" << std::hex << t.pc << std::dec;
  o << ": " << t.count << " warp instructions, ";
  switch (t.kind) {
    case TrafficKind::WgmmaOperands:
      o << t.bytes << " bytes read, " << t.wavefronts
        << " wavefronts (one per 128 bytes a warpgroup instruction reads, never a bank conflict: measured)";
      if (t.a_from_registers) o << "; A from registers in " << t.a_from_registers;
      if (t.not_reading) o << "; " << t.not_reading << " with an empty warp mask (nothing read)";
      break;
    case TrafficKind::TmaLoad:
    case TrafficKind::TmaStore:
      o << t.bytes << " bytes " << (t.kind == TrafficKind::TmaLoad ? "into" : "out of")
        << " shared memory, 0 LSU wavefronts (measured: TMA moves none, and no bank conflict)";
      if (t.unknown_bytes)
        o << "; bytes unknown for " << t.unknown_bytes
          << (t.kind == TrafficKind::TmaLoad
                  ? " (their tensor map is none that cuTensorMapEncodeTiled made in this process, or BANKLAB_TRACE_TMA_MAP=0)"
                  : " (the API's TMA store callback is not read for its box)");
      break;
  }
  return o.str();
}

void write_report(std::ostream& out, Format format, const Report& rep, const std::vector<Instruction>& instructions) {
  switch (format) {
    case Format::Text: {
      if (rep.kernels.empty()) out << "No shared-memory instruction the model explains was traced.\n";
      for (const KernelReport& k : rep.kernels) {
        out << "kernel " << display_name(k.kernel) << ": " << k.warp_instructions << " warp instructions, "
            << k.wavefronts << " wavefronts, minimum " << k.minimum << ", excess " << k.excess();
        if (k.wgmma_instructions > 0)
          out << " (wgmma operand reads among them: " << k.wgmma_instructions << " warp instructions, "
              << k.wgmma_wavefronts << " wavefronts)";
        out << "\n";
        for (const LineReport& l : k.lines) {
          out << "  " << where(l) << ": " << l.warp_instructions << " warp instructions, " << l.wavefronts
              << " wavefronts, minimum " << l.minimum << ", excess " << l.excess() << "\n";
          if (l.excess() > 0) {
            out << "    worst: " << describe(l.worst.op) << " " << l.worst.width << " bytes, "
                << l.worst_wavefronts << " wavefronts against a minimum of " << l.worst_minimum << "\n"
                << "    hint: " << l.hint << "\n"
                << "    see:  " << explain_command(l.worst) << "\n";
            if (const std::string banks = source_banks_text(l.worst, l.worst_source_banks); !banks.empty())
              out << "    (explain takes lane i's global source at 16 * i; these lanes read global words in banks "
                  << banks << (banks.find('z') != std::string::npos ? " (z: zero fill, nothing read)" : "")
                  << ", which the wavefronts above count)\n";
          }
        }
        for (const Traffic& t : k.traffic) out << "  " << traffic_text(t) << "\n";
      }
      for (const UnmodelledReport& u : rep.unmodelled)
        out << "not modelled: " << display_name(u.kernel) << ": " << u.what << ": " << u.count << " warp instructions\n";
      if (!rep.not_traced.empty()) out << "not traced: " << rep.not_traced << "\n";
      if (rep.dropped > 0)
        out << "warning: " << rep.dropped << " warp instructions ran but were not recorded (device buffer full; "
            << "raise BANKLAB_TRACE_BUFFER_MB)\n";
      break;
    }
    case Format::Csv: {
      out << "kernel,file,line,pc,warp_instructions,wavefronts,minimum,excess,worst_access\n";
      for (const KernelReport& k : rep.kernels)
        for (const LineReport& l : k.lines)
          out << csv_field(k.kernel) << "," << csv_field(l.file) << "," << l.line << "," << l.pc << ","
              << l.warp_instructions << "," << l.wavefronts << "," << l.minimum << "," << l.excess() << ","
              << format_access_line(l.worst) << "\n";
      for (const KernelReport& k : rep.kernels)
        for (const Traffic& t : k.traffic)
          out << csv_field(k.kernel) << "," << csv_field(t.file) << "," << t.line << "," << t.pc << "," << t.count << ","
              << t.wavefronts << "," << t.wavefronts << ",0," << csv_field(traffic_text(t)) << "\n";
      for (const UnmodelledReport& u : rep.unmodelled)
        out << csv_field(u.kernel) << ",,0,0," << u.count << ",,,," << csv_field("not modelled: " + u.what) << "\n";
      break;
    }
    case Format::Json: {
      // One object (nlohmann::json, the project's one JSON library), its keys in this order.
      using ordered_json = nlohmann::ordered_json;
      ordered_json kernels = ordered_json::array();
      for (const KernelReport& k : rep.kernels) {
        ordered_json traffic = ordered_json::array(), lines = ordered_json::array();
        for (const Traffic& t : k.traffic)
          traffic.push_back({{"kind", traffic_name(t.kind)}, {"file", t.file}, {"line", t.line}, {"pc", t.pc},
                             {"warp_instructions", t.count}, {"bytes", t.bytes}, {"wavefronts", t.wavefronts},
                             {"a_from_registers", t.a_from_registers}, {"not_reading", t.not_reading},
                             {"unknown_bytes", t.unknown_bytes}});
        for (const LineReport& l : k.lines) {
          ordered_json line{{"file", l.file}, {"line", l.line}, {"pc", l.pc}, {"warp_instructions", l.warp_instructions},
                            {"wavefronts", l.wavefronts}, {"minimum", l.minimum}, {"excess", l.excess()},
                            {"worst", format_access_line(l.worst)}, {"worst_wavefronts", l.worst_wavefronts},
                            {"worst_minimum", l.worst_minimum}, {"hint", l.hint}, {"explain", explain_command(l.worst)}};
          if (const std::string banks = source_banks_text(l.worst, l.worst_source_banks); !banks.empty())
            line["worst_source_banks"] = banks;
          lines.push_back(std::move(line));
        }
        kernels.push_back({{"kernel", k.kernel}, {"warp_instructions", k.warp_instructions}, {"wavefronts", k.wavefronts},
                           {"minimum", k.minimum}, {"excess", k.excess()}, {"load_instructions", k.load_instructions},
                           {"load_wavefronts", k.load_wavefronts}, {"store_instructions", k.store_instructions},
                           {"store_wavefronts", k.store_wavefronts}, {"async_copy_instructions", k.async_copy_instructions},
                           {"async_copy_wavefronts", k.async_copy_wavefronts}, {"atomic_instructions", k.atomic_instructions},
                           {"atomic_wavefronts", k.atomic_wavefronts}, {"wgmma_instructions", k.wgmma_instructions},
                           {"wgmma_wavefronts", k.wgmma_wavefronts}, {"wgmma_bytes", k.wgmma_bytes},
                           {"tma_load_instructions", k.tma_load_instructions}, {"tma_load_bytes", k.tma_load_bytes},
                           {"tma_load_unknown", k.tma_load_unknown}, {"tma_store_instructions", k.tma_store_instructions},
                           {"tma_store_bytes", k.tma_store_bytes}, {"tma_store_unknown", k.tma_store_unknown},
                           {"traffic", std::move(traffic)}, {"lines", std::move(lines)}});
      }
      ordered_json unmodelled = ordered_json::array();
      for (const UnmodelledReport& u : rep.unmodelled)
        unmodelled.push_back({{"kernel", u.kernel}, {"what", u.what}, {"count", u.count}});
      const ordered_json report{{"schema", kTraceReportSchema}, {"kernels", std::move(kernels)},
                                {"unmodelled", std::move(unmodelled)}, {"not_traced", rep.not_traced},
                                {"dropped", rep.dropped}};
      out << report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      break;
    }
    case Format::Predict: {
      // One line per distinct instruction, as `banklab predict` reads them; '#' lines say where.
      for (const Instruction& ins : instructions) {
        out << "# " << ins.kernel << " " << (ins.line > 0 ? ins.file + ":" + std::to_string(ins.line) : std::string("pc ") + std::to_string(ins.pc))
            << " x" << ins.count << "\n";
        // What the tracer charged it: with recorded global sources this can differ from what
        // `banklab predict` gives the line below (it takes lane i's source at 16 * i).
        const Cost c = cost_of(ins);
        out << "# traced cost: " << c.wavefronts << " wavefronts a warp instruction, minimum " << c.minimum << "\n";
        if (const std::string banks = source_banks_text(ins.access, ins.source_banks); !banks.empty())
          out << "# global source banks (the line below takes 16 * i): " << banks << "\n";
        out << format_access_line(ins.access) << "\n";
      }
      break;
    }
  }
}

}  // namespace banklab::trace
