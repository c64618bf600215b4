// Text from the student's side (compiler output about the student's file, a probe's answers, a
// test process's own output) made safe before the judge prints it or puts it in a record: cut to
// a few KiB with the cut said, and every byte a terminal could act on shown as a visible escape.
// The one place for this rule: every quote of student text in the judge goes through it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "clean_text_rule.hpp"

namespace judge {

/// How much of a student's text one message quotes (a compile's diagnostics, a process's output):
/// the rule's message_bytes (grader/judge/clean_text.toml, which Python's cleaner reads too).
constexpr std::size_t kQuoteBytes = clean_rule::kMessageBytes;

/// `text` with every character of the rule
/// (grader/judge/clean_text.toml, generated into clean_text_rule.hpp: every control character, so
/// ESC and with it every CSI/OSC sequence, CR, BEL, DEL and the C1 controls; every format character
/// but the joiners, so every bidirectional override, embedding, isolate and mark; the line and
/// paragraph separators) and every byte that is not UTF-8 shown as a visible escape (\x1b, \r,
/// \u202e, \xff). A multi-line message (`keep_newlines`) keeps its newlines and tabs and drops a CR
/// right before a newline; with `keep_newlines` false they are escaped too (one line of text).
/// Then, when that is over `max_bytes`, cut by the rule's cut to at most `max_bytes` (its start and
/// its end kept, a character either cut splits left out, the rule's marker between them:
/// "\n... [cut: N more bytes] ...\n", on one line without the newlines). Python's
/// banklab.grading.cleantext applies the same rule (message(), name()), byte for byte. Linear in the text.
std::string clean_text(std::string_view text, std::size_t max_bytes = kQuoteBytes, bool keep_newlines = true);

/// True when `text` holds nothing clean_text() would escape (no byte a terminal acts on).
bool is_clean(std::string_view text, bool newlines_allowed = true);

}  // namespace judge
