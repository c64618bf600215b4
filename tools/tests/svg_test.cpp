// `banklab explain --svg`: well-formed, deterministic, self-contained.
#include "banklab_cli/svg.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "banklab_cli/expr.hpp"

namespace banklab::cli {
namespace {

std::string svg_of(const char* expr, int width = 4, std::string_view title = "", Op op = Op::Load) {
  const WarpAccess a = access_from_expression(op, width, 0xffffffffu, expr);
  return render_svg(a, analyze(a), title);
}

// A small XML well-formedness check: elements nest and close, attribute values are quoted,
// '&' starts a known entity, no '<' in text, exactly one root element.
::testing::AssertionResult well_formed(const std::string& s) {
  std::vector<std::string> stack;
  std::size_t i = 0;
  int roots = 0;
  if (s.rfind("<?xml ", 0) == 0) i = s.find("?>") + 2;
  while (i < s.size()) {
    if (s[i] == '&') {
      const std::size_t semi = s.find(';', i);
      const std::string ent = semi == std::string::npos ? "" : s.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;")
        return ::testing::AssertionFailure() << "bad entity at " << i;
      i = semi + 1;
      continue;
    }
    if (s[i] != '<') {
      if (s[i] == '>') return ::testing::AssertionFailure() << "stray '>' at " << i;
      ++i;
      continue;
    }
    const std::size_t end = s.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unclosed tag at " << i;
    std::string tag = s.substr(i + 1, end - i - 1);
    // quotes inside the tag must pair up, and no '<' inside
    if (tag.find('<') != std::string::npos) return ::testing::AssertionFailure() << "'<' in tag at " << i;
    int quotes = 0;
    for (char c : tag) quotes += c == '"';
    if (quotes % 2) return ::testing::AssertionFailure() << "unbalanced quotes in <" << tag << ">";
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name)
        return ::testing::AssertionFailure() << "</" << name << "> closes " << (stack.empty() ? "nothing" : stack.back());
      stack.pop_back();
    } else {
      const bool empty = tag.back() == '/';
      const std::string name = tag.substr(0, tag.find_first_of(" /"));
      if (stack.empty()) ++roots;
      if (!empty) stack.push_back(name);
    }
    i = end + 1;
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "<" << stack.back() << "> never closed";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

TEST(Svg, IsWellFormedXml) { EXPECT_TRUE(well_formed(svg_of("lane*32*4"))); }

TEST(Svg, IsWellFormedForEveryWidth) {
  EXPECT_TRUE(well_formed(svg_of("lane", 1)));
  EXPECT_TRUE(well_formed(svg_of("(lane/2)*8", 8)));
  EXPECT_TRUE(well_formed(svg_of("lane*32", 16)));
}

TEST(Svg, IsDeterministic) {
  EXPECT_EQ(svg_of("((lane ^ (lane >> 2)) & 31) * 8", 8, "t"),
            svg_of("((lane ^ (lane >> 2)) & 31) * 8", 8, "t"));
}

TEST(Svg, TitleLineGivesWavefrontsAndMinimum) {
  EXPECT_NE(svg_of("lane*32*4").find("32 wavefronts (minimum 1)"), std::string::npos);
}

TEST(Svg, DrawsOneRowPerWavefront) {
  const std::string s = svg_of("lane*32*4");
  EXPECT_NE(s.find(">wavefront 32<"), std::string::npos);
  EXPECT_EQ(s.find(">wavefront 33<"), std::string::npos);
}

TEST(Svg, MarksConflictsAndBroadcastsAndHasALegend) {
  EXPECT_NE(svg_of("lane*32*4").find("stroke=\"#d00000\""), std::string::npos);
  EXPECT_NE(svg_of("0").find("<circle"), std::string::npos);
  const std::string s = svg_of("0");
  EXPECT_NE(s.find("conflict: the bank serves a second distinct word"), std::string::npos);
  EXPECT_NE(s.find("broadcast: several lanes get one word"), std::string::npos);
}

TEST(Svg, UsesTheGivenTitleEscaped) {
  const std::string s = svg_of("lane*4", 4, "Padding <33> & \"you\"");
  EXPECT_NE(s.find("Padding &lt;33&gt; &amp; &quot;you&quot;"), std::string::npos);
  EXPECT_TRUE(well_formed(s));
}

TEST(Svg, IsSelfContained) {
  const std::string s = svg_of("lane*32*4");
  EXPECT_EQ(s.find("href"), std::string::npos);
  EXPECT_EQ(s.find("url("), std::string::npos);
  EXPECT_EQ(s.find("@import"), std::string::npos);
}

TEST(Svg, EscapeReplacesInvalidUtf8AndControlCharacters) {
  EXPECT_EQ(xml_escape("a\x01" "b\xff" "c\xc3"), "a?b?c?");
  EXPECT_EQ(xml_escape("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(xml_escape("\xed\xa0\x80"), "???");  // a UTF-16 surrogate is not a character
}

}  // namespace
}  // namespace banklab::cli
