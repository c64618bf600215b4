/// @file trace_command.hpp
/// @brief `banklab trace`, registered by tools/main.cpp when tools/trace/ is built (over the tracer's core, trace/).
#pragma once
#include <CLI/CLI.hpp>

namespace banklab::cli {
void add_trace_command(CLI::App& app);
}  // namespace banklab::cli
