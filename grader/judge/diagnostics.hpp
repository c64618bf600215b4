// The compiler's messages about the student's own file, read by hand (no regular expression runs
// over them: their lines quote the student's source, of any length). See docs/dev/GRADER.md,
// "Verdict records".
#pragma once

#include <string>
#include <string_view>

namespace judge {

/// The file a compiler line is about, when it starts with a location: `FILE:LINE[:COL][:,] `,
/// `FILE(LINE)[:,] ` (nvcc's front end), each perhaps after "In file included from " or an indented
/// "from "; or a function or scope heading `FILE: In function ...:` / `FILE: At global scope:`.
/// Empty when the line starts with none (a quoted source line, a caret, a note's continuation).
std::string located_file(std::string_view line);

/// Compiler messages about the student's own file only (and the probe's, the course's public
/// code): a diagnostic located in any other file, with its echoed source lines, is left out and
/// counted, so no line of a file the student included (#include "/etc/shadow") reaches feedback.
/// A line of the compiler driver's or the linker's own (`gcc: internal compiler error: File size
/// limit exceeded ...`, `collect2: error: ld returned 1 exit status`, `nvcc error : 'cicc' died
/// ...`) is kept too: it quotes no file, and says what stopped the compile.
/// `student_inside` is replaced by `student_shown` in what is kept. Not yet cleaned: the caller
/// quotes it through clean_text().
std::string own_diagnostics(const std::string& log, const std::string& student_inside, const std::string& student_shown,
                            const std::string& probe_name, bool errors_expected = true);

/// True when the student's file has a `#line` directive (`# line N "NAME"`, or the GNU form `# N
/// "NAME"`): the compiler's messages then name whatever file the directive says, and cannot be
/// told apart by their location.
bool has_line_directive(std::string_view source);

}  // namespace judge
