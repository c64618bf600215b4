// `banklab explain --svg`: a deterministic, self-contained SVG of one access.
#include "banklab_cli/svg.hpp"

#include <cstdarg>
#include <cstdio>

#include "banklab_cli/explain_render.hpp"

namespace banklab::cli {
namespace {

// Length of the valid UTF-8 sequence starting at s[i] that XML 1.0 allows, or 0.
std::size_t utf8_char(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xe0) == 0xc0) { n = 2; cp = b0 & 0x1fu; }
  else if ((b0 & 0xf0) == 0xe0) { n = 3; cp = b0 & 0x0fu; }
  else if ((b0 & 0xf8) == 0xf0) { n = 4; cp = b0 & 0x07u; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3fu);
  }
  // Overlong forms, surrogates, beyond Unicode, and the non-characters XML forbids.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;
  if (cp > 0x10ffff || cp == 0xfffe || cp == 0xffff) return 0;
  return n;
}

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  const int n = std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  if (n < 0) return {};
  if (static_cast<std::size_t>(n) < sizeof buf) return std::string(buf, static_cast<std::size_t>(n));
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  va_start(ap, f);
  std::vsnprintf(big.data(), big.size(), f, ap);
  va_end(ap);
  big.resize(static_cast<std::size_t>(n));
  return big;
}

// One pastel colour per lane; 137 is coprime with 360, so the 32 hues all differ.
std::string lane_fill(int lane) { return fmt("hsl(%d,70%%,82%%)", (lane * 137) % 360); }

constexpr int kCellW = 26, kCellH = 22, kLeft = 112, kMargin = 12;

}  // namespace

std::string xml_escape(std::string_view t) {
  std::string o;
  o.reserve(t.size());
  for (std::size_t i = 0; i < t.size();) {
    const char c = t[i];
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') { o += '?'; ++i; continue; }
    switch (c) {
      case '&': o += "&amp;"; ++i; continue;
      case '<': o += "&lt;"; ++i; continue;
      case '>': o += "&gt;"; ++i; continue;
      case '"': o += "&quot;"; ++i; continue;
      case '\'': o += "&apos;"; ++i; continue;
      default: break;
    }
    const std::size_t n = utf8_char(t, i);
    if (n == 0) { o += '?'; ++i; continue; }
    o.append(t.substr(i, n));
    i += n;
  }
  return o;
}

std::string render_svg(const WarpAccess& a, const Analysis& r, std::string_view title) {
  const std::vector<Row> rows = layout(r);
  int groups_shown = 0;
  {
    int prev = -1;
    for (const Row& row : rows)
      if (row.group != prev) { ++groups_shown; prev = row.group; }
  }
  const int kGroupH = 18;
  const int top = 86;  // first bank-header baseline region ends here
  const int grid_h = static_cast<int>(rows.size()) * kCellH + groups_shown * kGroupH;
  const int legend_y = top + grid_h + 24;
  const int width = kMargin * 2 + kLeft + kNumBanks * kCellW;
  const int height = legend_y + 70;

  const std::string heading = title.empty() ? describe_access(a) : std::string(title);
  std::string summary = count_line(r);
  if (r.conflicts() > 0) summary += fmt(": %d extra from bank conflicts", r.conflicts());
  summary += std::string(" \u2014 ") + describe_access(a) + ", groups: " + to_string(r.grouping) +
             (r.merged ? " (merged)" : "");

  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
           "font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"11\">\n",
           width, height, width, height);
  s += "<title>" + xml_escape(heading) + "</title>\n";
  s += "<desc>" + xml_escape(summary) + ". " + xml_escape(r.why) + "</desc>\n";
  s += fmt("<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height);
  s += fmt("<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>\n", kMargin,
           xml_escape(heading).c_str());
  s += fmt("<text x=\"%d\" y=\"44\" font-size=\"12\">%s</text>\n", kMargin, xml_escape(summary).c_str());
  s += fmt("<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#444444\">bank</text>\n", kMargin, top - 8);
  for (int b = 0; b < kNumBanks; ++b)
    s += fmt("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#444444\">%d</text>\n",
             kMargin + kLeft + b * kCellW + kCellW / 2, top - 8, b);

  int y = top;
  int prev = -1;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& row = rows[k];
    if (row.group != prev) {
      prev = row.group;
      const Group& g = r.groups[static_cast<std::size_t>(row.group)];
      s += fmt("<text x=\"%d\" y=\"%d\" font-size=\"11\" font-style=\"italic\" fill=\"#333333\">group %d: "
               "lanes %d-%d, %d wavefront%s (minimum %d)</text>\n",
               kMargin, y + 13, row.group + 1, g.first_lane, g.first_lane + g.lane_count - 1,
               g.wavefronts, g.wavefronts == 1 ? "" : "s", g.minimum);
      s += fmt("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999999\" stroke-width=\"1\"/>\n",
               kMargin, y + 1, width - kMargin, y + 1);
      y += kGroupH;
    }
    s += fmt("<text x=\"%d\" y=\"%d\">wavefront %d</text>\n", kMargin, y + 15, static_cast<int>(k) + 1);
    for (int b = 0; b < kNumBanks; ++b) {
      const Cell& c = row.cells[static_cast<std::size_t>(b)];
      const int x = kMargin + kLeft + b * kCellW;
      if (!c.used) {
        s += fmt("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f3f3f3\" stroke=\"#dddddd\"/>\n",
                 x, y, kCellW, kCellH);
        continue;
      }
      const int lane = c.lanes.empty() ? 0 : c.lanes.front();
      std::string tip = fmt("bank %d, word %u: ", b, c.word) + lane_list(c.lanes, 32);
      if (c.conflict) tip += " (conflict: this bank's word number " + std::to_string(row.in_group + 1) + " for its group)";
      if (c.broadcast) tip += " (broadcast)";
      s += "<g>";
      s += "<title>" + xml_escape(tip) + "</title>";
      if (c.conflict)
        s += fmt("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#d00000\" stroke-width=\"2.5\"/>",
                 x + 1, y + 1, kCellW - 2, kCellH - 2, lane_fill(lane).c_str());
      else
        s += fmt("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#888888\"/>",
                 x, y, kCellW, kCellH, lane_fill(lane).c_str());
      s += fmt("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\"%s>%d</text>", x + kCellW / 2, y + 15,
               c.broadcast ? " font-weight=\"bold\"" : "", lane);
      if (c.broadcast)
        s += fmt("<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#0060d0\"/>", x + kCellW - 5, y + 5);
      s += "</g>\n";
    }
    y += kCellH;
  }
  if (rows.empty())
    s += fmt("<text x=\"%d\" y=\"%d\">no wavefront: no lane is active</text>\n", kMargin, top + 16);

  // Legend.
  const int ly = legend_y;
  s += fmt("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#888888\"/>", kMargin, ly,
           kCellW, kCellH, lane_fill(5).c_str());
  s += fmt("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">5</text>\n", kMargin + kCellW / 2, ly + 15);
  s += fmt("<text x=\"%d\" y=\"%d\">lane 5 gets its word from this bank in this wavefront (one colour per lane)</text>\n",
           kMargin + kCellW + 8, ly + 15);
  s += fmt("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#d00000\" stroke-width=\"2.5\"/>",
           kMargin + 1, ly + kCellH + 5, kCellW - 2, kCellH - 2, lane_fill(1).c_str());
  s += fmt("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">1</text>", kMargin + kCellW / 2, ly + kCellH + 19);
  s += fmt("<text x=\"%d\" y=\"%d\">conflict: the bank serves a second distinct word</text>\n",
           kMargin + kCellW + 8, ly + kCellH + 19);
  const int bx = kMargin + width / 2;
  s += fmt("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#888888\"/>", bx,
           ly + kCellH + 4, kCellW, kCellH, lane_fill(0).c_str());
  s += fmt("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">0</text>", bx + kCellW / 2,
           ly + kCellH + 19);
  s += fmt("<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#0060d0\"/>", bx + kCellW - 5, ly + kCellH + 9);
  s += fmt("<text x=\"%d\" y=\"%d\">broadcast: several lanes get one word (lowest lane shown)</text>\n",
           bx + kCellW + 8, ly + kCellH + 19);
  s += "</svg>\n";
  return s;
}

}  // namespace banklab::cli
