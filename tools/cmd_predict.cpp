// banklab predict [FILE]: one line per access in, one line per access out.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "banklab/pattern_io.hpp"
#include "banklab_cli/predict.hpp"
#include "commands.hpp"

namespace banklab::cli {

void add_predict_command(CLI::App& app) {
  auto file = std::make_shared<std::string>("-");
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Wavefronts of every access in FILE (or stdin), one per line: "
      "'op width mask off0 ... off31'. Prints 'W min=M conflicts=C groups=G merged=yes|no'.");
  sub->add_option("file", *file, "input file; '-' or nothing for stdin");
  auto swizzle = std::make_shared<std::string>("none");
  sub->add_option("--tma-swizzle", *swizzle,
                  "none, 32, 64 or 128: the offsets are bytes of a tile that TMA wrote with this swizzle, "
                  "before the swizzle (rows 32, 64 or 128 bytes apart), and the accesses go where it put them");
  sub->callback([file, swizzle] {
    TmaSwizzle mode = TmaSwizzle::None;
    if (auto err = parse_tma_swizzle(*swizzle, mode)) throw ParseError("--tma-swizzle", 1, *err);
    const bool use_stdin = *file == "-";
    const std::string name = use_stdin ? "<stdin>" : *file;
    std::FILE* in = use_stdin ? stdin : std::fopen(file->c_str(), "rb");
    if (!in) throw ParseError(name, 0, std::string("cannot open file: ") + std::strerror(errno));
    struct Closer {
      std::FILE* f;
      bool close;
      ~Closer() {
        if (close) std::fclose(f);
      }
    } closer{in, !use_stdin};
    static char outbuf[1 << 16];
    std::setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    predict_stream(in, name, stdout, mode);
  });
}

}  // namespace banklab::cli
