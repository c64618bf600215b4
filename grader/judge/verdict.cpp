#include "verdict.hpp"

#include "banklab/json.hpp"
#include "clean_text.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace judge {
namespace {

std::string quote(const std::string& s) { return banklab::json_quote(s); }

// A record's message may quote the student's side (compiler output, a test process's own output):
// it is written and printed cleaned (clean_text.hpp), whoever built it.
constexpr std::size_t kMessageBytes = 64 << 10;

std::string body(const Verdict& v) {
  std::ostringstream os;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", v.seconds);
  os << "{\"schema\": \"banklab.verdict.v1\", \"lab\": " << quote(v.lab) << ", \"test\": " << quote(v.test)
     << ", \"tier\": " << quote(v.tier) << ", \"status\": " << quote(v.status) << ", \"checks\": " << v.checks
     << ", \"seconds\": " << secs << ", \"message\": " << quote(clean_text(v.message, kMessageBytes))
     << (v.emulated ? ", \"emulated\": true" : "") << "}";
  return os.str();
}

// A reader for the flat objects above: string and number fields only.
bool parse_flat(const std::string& s, std::map<std::string, std::string>& out) {
  std::size_t i = s.find('{');
  if (i == std::string::npos) return false;
  ++i;
  auto ws = [&] { while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i; };
  auto str = [&](std::string& o) {
    if (i >= s.size() || s[i] != '"') return false;
    ++i;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) {
        const char e = s[++i];
        if (e == 'n') o += '\n';
        else if (e == 't') o += '\t';
        else if (e == 'r') o += '\r';
        else if (e == 'u' && i + 4 < s.size()) {
          o += static_cast<char>(std::strtol(s.substr(i + 1, 4).c_str(), nullptr, 16));
          i += 4;
        } else o += e;
      } else {
        o += s[i];
      }
      ++i;
    }
    if (i >= s.size()) return false;
    ++i;
    return true;
  };
  for (;;) {
    ws();
    if (i < s.size() && s[i] == '}') return true;
    std::string k, val;
    if (!str(k)) return false;
    ws();
    if (i >= s.size() || s[i] != ':') return false;
    ++i;
    ws();
    if (i < s.size() && s[i] == '"') {
      if (!str(val)) return false;
    } else {
      while (i < s.size() && s[i] != ',' && s[i] != '}') val += s[i++];
    }
    out[k] = val;
    ws();
    if (i < s.size() && s[i] == ',') ++i;
  }
}

}  // namespace

std::string to_json(const Verdict& v) { return body(v); }

bool read_verdict(const std::string& path, Verdict& v) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  std::map<std::string, std::string> m;
  if (!parse_flat(ss.str(), m) || m["schema"] != "banklab.verdict.v1") return false;
  v.lab = m["lab"];
  v.test = m["test"];
  v.tier = m["tier"];
  v.status = m["status"];
  v.checks = std::atoll(m["checks"].c_str());
  v.seconds = std::atof(m["seconds"].c_str());
  v.message = m["message"];
  v.emulated = m["emulated"] == "true";
  return v.status == "passed" || v.status == "failed" || v.status == "skipped" || v.status == "fault";
}

std::string grade_json(const std::string& lab, const std::string& source, const std::string& sha256,
                       const std::vector<Verdict>& verdicts) {
  std::ostringstream os;
  os << "{\"schema\": \"banklab.grade.v1\", \"lab\": " << quote(lab) << ", \"source\": " << quote(source)
     << ", \"source_sha256\": " << quote(sha256) << ", \"verdicts\": [";
  for (std::size_t i = 0; i < verdicts.size(); ++i) os << (i ? ",\n  " : "\n  ") << body(verdicts[i]);
  os << "\n]}\n";
  return os.str();
}

std::string summary_line(const Verdict& v) {
  std::string tag = v.status == "passed"    ? "[ PASSED ]"
                    : v.status == "skipped" ? "[ SKIPPED]"
                    : v.status == "fault"   ? "[ FAULT  ]"
                                            : "[ FAILED ]";
  std::string s = "banklab-judge " + tag + " lab" + v.lab + "." + v.test + " (" + std::to_string(v.checks) + " checks" +
                  (v.emulated ? ", on the emulator)" : ")");
  if (v.status == "skipped" || v.status == "fault") s += ": " + clean_text(v.message, kMessageBytes);
  return s;
}

}  // namespace judge
