// Text from the student's side (compiler output about the student's file, a probe's answers, a
// test process's own output) made safe before the judge prints it or puts it in a record: cut to
// a few KiB with the cut said, and every byte a terminal could act on shown as a visible escape.
// The one place for this rule: every quote of student text in the judge goes through it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace judge {

/// How much of a student's text one message quotes (a compile's diagnostics, a process's output).
constexpr std::size_t kQuoteBytes = 4096;

/// `text` cut to at most `max_bytes` of its own bytes (at a character's boundary; the cut said on a
/// line of its own: "[... N more bytes not shown]"), with every control character but a newline and
/// a tab (so ESC and with it every CSI/OSC sequence, CR, BEL, DEL), every C1 control, every
/// bidirectional override, embedding, isolate and mark, the line and paragraph separators, and
/// every byte that is not UTF-8 shown as a visible escape (\x1b, \r, \u202e). With
/// `keep_newlines` false a newline is escaped too (one line of text). Linear in the text.
std::string clean_text(std::string_view text, std::size_t max_bytes = kQuoteBytes, bool keep_newlines = true);

/// True when `text` holds nothing clean_text() would escape (no byte a terminal acts on).
bool is_clean(std::string_view text, bool newlines_allowed = true);

}  // namespace judge
