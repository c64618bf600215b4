// banklab compare FILE.csv: the model against measured wavefronts and bank conflicts.
#include <cstdio>
#include <memory>
#include <string>

#include "banklab/pattern_io.hpp"
#include "banklab_cli/compare.hpp"
#include "commands.hpp"

namespace banklab::cli {

void add_compare_command(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Compare the model with a measurement CSV (id,op,width,mask,offsets,wavefronts,"
      "bank_conflicts,instructions[,gpu]); explain every difference; exit 1 if any.");
  sub->add_option("file", *file, "measurement CSV, e.g. common/data/h200_wavefronts_named.csv")
      ->required();
  sub->callback([file] {
    const std::vector<Measurement> rows = read_measurements_file(*file);
    if (rows.empty()) throw ParseError(*file, 2, "no measurement rows after the header");
    const CompareResult res = compare_measurements(rows);
    std::fputs(res.report.c_str(), stdout);
    if (res.matched != res.total) throw Exit{1};
  });
}

}  // namespace banklab::cli
