// The model's answer in words (see describe.hpp).
#include "banklab/describe.hpp"

#include <algorithm>

#include "banklab/pattern_io.hpp"

namespace banklab {

std::string group_lanes(const Group& g) {
  return "lanes " + std::to_string(g.first_lane) + "-" + std::to_string(g.first_lane + g.lane_count - 1);
}

std::string lane_list(const std::vector<int>& lanes, std::size_t max_items) {
  std::string s = lanes.size() == 1 ? "lane " : "lanes ";
  std::size_t items = 0;
  for (std::size_t i = 0; i < lanes.size();) {
    std::size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    if (items == max_items) {
      s += ", ...";
      break;
    }
    if (items) s += ", ";
    s += std::to_string(lanes[i]);
    if (j > i) s += (j == i + 1 ? ", " : "-") + std::to_string(lanes[j]);
    ++items;
    i = j + 1;
  }
  return s;
}

std::vector<BankConflict> bank_conflicts(const Analysis& r) {
  std::vector<BankConflict> out;
  for (std::size_t gi = 0; gi < r.groups.size(); ++gi) {
    const Group& g = r.groups[gi];
    if (g.wavefronts <= g.minimum || g.worst_bank < 0) continue;
    BankConflict c;
    c.group = static_cast<int>(gi);
    c.bank = g.worst_bank;
    c.wavefronts = g.wavefronts;
    c.minimum = g.minimum;
    // Wavefront k of a group serves the bank's k-th different word: the words come out in the
    // order the bank serves them.
    for (const Wavefront& w : r.wavefront_detail) {
      if (w.group != c.group) continue;
      for (const LaneWord& x : w.served) {
        if (x.bank != c.bank) continue;
        if (c.words.empty() || c.words.back().word != x.word) {
          auto it = std::find_if(c.words.begin(), c.words.end(),
                                 [&](const WordRequest& q) { return q.word == x.word; });
          if (it == c.words.end()) {
            c.words.push_back(WordRequest{x.word, {}});
            it = c.words.end() - 1;
          }
          it->lanes.push_back(x.lane);
        } else {
          c.words.back().lanes.push_back(x.lane);
        }
        c.lanes.push_back(x.lane);
      }
    }
    for (WordRequest& q : c.words) {
      std::sort(q.lanes.begin(), q.lanes.end());
      q.lanes.erase(std::unique(q.lanes.begin(), q.lanes.end()), q.lanes.end());
    }
    std::sort(c.lanes.begin(), c.lanes.end());
    c.lanes.erase(std::unique(c.lanes.begin(), c.lanes.end()), c.lanes.end());
    out.push_back(std::move(c));
  }
  return out;
}

std::string summary_line(const Analysis& r) {
  return std::to_string(r.wavefronts) + " wavefronts, minimum " + std::to_string(r.minimum) + " (" +
         std::to_string(r.conflicts()) + " extra); grouping: " + to_string(r.grouping) +
         (r.merged ? " (merged)" : "") + ". " + r.why;
}

std::string describe(const Analysis& r, const DescribeOptions& opt) {
  std::string s = summary_line(r) + "\n";
  int shown = 0;
  for (const BankConflict& c : bank_conflicts(r)) {
    if (shown == opt.max_banks) break;
    ++shown;
    // Words in ascending order, as a reader scans them.
    std::vector<const WordRequest*> words;
    for (const WordRequest& q : c.words) words.push_back(&q);
    std::sort(words.begin(), words.end(),
              [](const WordRequest* x, const WordRequest* y) { return x->word < y->word; });
    s += "  " + group_lanes(r.groups[static_cast<std::size_t>(c.group)]) + ": bank " +
         std::to_string(c.bank) + " must serve " + std::to_string(c.words.size()) + " different words:";
    int n = 0;
    for (const WordRequest* q : words) {
      if (n++ == opt.max_words) {
        s += " ...";
        break;
      }
      s += (n > 1 ? ", word " : " word ") + std::to_string(q->word) + " (lane";
      if (q->lanes.size() > 1) s += "s";
      for (std::size_t k = 0; k < q->lanes.size() && k < static_cast<std::size_t>(opt.max_lanes); ++k)
        s += (k ? "," : " ") + std::to_string(q->lanes[k]);
      if (q->lanes.size() > static_cast<std::size_t>(opt.max_lanes)) s += ",...";
      s += ")";
    }
    s += "\n";
  }
  return s;
}

std::string shell_quote(std::string_view s) {
  auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == '+';
  };
  if (!s.empty() && std::all_of(s.begin(), s.end(), plain)) return std::string(s);
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

std::string explain_command(const WarpAccess& a, const std::string& banklab_path) {
  // The line holds only lower-case letters, digits and spaces: safe inside double quotes.
  return shell_quote(banklab_path) + " explain --line \"" + format_access_line(a) + "\"";
}

}  // namespace banklab
