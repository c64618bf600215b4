/// @file commands.hpp
/// @brief The subcommands of `banklab`, one file each. A subcommand reports bad input by
///        throwing banklab::ParseError ("FILE:LINE: problem"; main prints it and exits 2) and
///        any other exit status by throwing Exit.
#pragma once

#include <CLI/CLI.hpp>

#include "banklab_cli/run_app.hpp"  // Exit

namespace banklab::cli {

void add_predict_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_explain_command(CLI::App& app);

}  // namespace banklab::cli
