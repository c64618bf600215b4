#include "verdict.hpp"

#include "clean_text.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

namespace judge {
namespace {

using ordered_json = nlohmann::ordered_json;

// A record's message may quote the student's side (compiler output, a test process's own output):
// it is written and printed cleaned (clean_text.hpp), whoever built it.
constexpr std::size_t kMessageBytes = 64 << 10;
// The most a record may be: the message's bound with room for its escapes and the other fields.
constexpr std::size_t kRecordBytes = 8 * kMessageBytes;

// Written as UTF-8 (what is not UTF-8 becomes U+FFFD), keys in this order.
std::string dump(const ordered_json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

ordered_json body(const Verdict& v) {
  ordered_json j{{"schema", kVerdictSchema},
                 {"lab", v.lab},
                 {"test", v.test},
                 {"tier", v.tier},
                 {"status", v.status},
                 {"checks", v.checks},
                 {"seconds", std::round(v.seconds * 1000) / 1000},  // milliseconds, as before
                 {"message", clean_text(v.message, kMessageBytes)}};
  if (v.emulated) j["emulated"] = true;  // only where it is true (verdict.hpp)
  return j;
}

}  // namespace

std::optional<nlohmann::json> parse_strict(const std::string& text, std::string& why) {
  // One set of keys per open object: a key seen twice in one object refuses the text (nlohmann's
  // own parser keeps the last; a record that says "passed" and then "failed" means nothing).
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  const nlohmann::json::parser_callback_t cb = [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (ev == E::object_start) keys.emplace_back();
    else if (ev == E::object_end && !keys.empty()) keys.pop_back();
    else if (ev == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, cb);  // strict: bad escapes, lone surrogates, bad UTF-8, trailing text throw
  } catch (const nlohmann::json::exception& e) {
    why = std::string("not JSON (") + e.what() + ")";
    return std::nullopt;
  }
  if (!duplicate.empty()) {
    why = "the key \"" + clean_text(duplicate, 80, false) + "\" is there twice";
    return std::nullopt;
  }
  return j;
}

std::string to_json(const Verdict& v) { return dump(body(v)); }

std::string parse_verdict(const std::string& text, Verdict& v) {
  if (text.size() > kRecordBytes) return "more than " + std::to_string(kRecordBytes) + " bytes";
  std::string why;
  const std::optional<nlohmann::json> j = parse_strict(text, why);
  if (!j) return why;
  if (!j->is_object()) return "not an object";
  if (!j->contains("schema") || (*j)["schema"] != kVerdictSchema) return std::string("not a ") + kVerdictSchema + " record";
  static const char* const kStrings[] = {"lab", "test", "tier", "status", "message"};
  for (const char* k : kStrings)
    if (!j->contains(k) || !(*j)[k].is_string()) return std::string("its \"") + k + "\" is missing or not a string";
  if (!j->contains("checks") || !(*j)["checks"].is_number_integer() || (*j)["checks"].get<long long>() < 0)
    return "its \"checks\" is missing or not a count";
  if (!j->contains("seconds") || !(*j)["seconds"].is_number()) return "its \"seconds\" is missing or not a number";
  const bool has_emulated = j->contains("emulated");
  if (has_emulated && (*j)["emulated"] != true) return "its \"emulated\" is there but not true";
  if (j->size() != std::size(kStrings) + 3 + (has_emulated ? 1 : 0)) return "it has a key a verdict record does not have";
  Verdict r;
  r.lab = (*j)["lab"].get<std::string>();
  r.test = (*j)["test"].get<std::string>();
  r.tier = (*j)["tier"].get<std::string>();
  r.status = (*j)["status"].get<std::string>();
  r.checks = (*j)["checks"].get<long long>();
  r.seconds = (*j)["seconds"].get<double>();
  r.message = (*j)["message"].get<std::string>();
  r.emulated = has_emulated;
  if (r.status != "passed" && r.status != "failed" && r.status != "skipped" && r.status != "fault")
    return "its status is none of passed, failed, skipped, fault";
  v = std::move(r);
  return "";
}

bool read_verdict(const std::string& path, Verdict& v) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string text(kRecordBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parse_verdict(text, v).empty();
}

std::string grade_json(const std::string& lab, const std::string& source, const std::string& sha256,
                       const std::vector<Verdict>& verdicts) {
  ordered_json all = ordered_json::array();
  for (const Verdict& v : verdicts) all.push_back(body(v));
  const ordered_json g{{"schema", kGradeSchema}, {"lab", lab}, {"source", source}, {"source_sha256", sha256},
                       {"verdicts", std::move(all)}};
  return dump(g, 1) + "\n";
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
