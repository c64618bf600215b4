// Runs one model entry point N times over model_bench's pool, for a load-independent figure:
// instructions per access under callgrind (bench/model_callgrind.sh takes the difference of
// two runs, so building the pool and starting the process cancel out).
//
//   model_instructions count|summarize|analyze WIDTH ld|st N
#include <cstdio>
#include <cstdlib>
#include <string>

#include "banklab/model.hpp"
#include "model_pool.hpp"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s count|summarize|analyze WIDTH ld|st N\n", argv[0]);
    return 2;
  }
  const std::string fn = argv[1];
  const int width = std::atoi(argv[2]);
  const banklab::Op op = std::string(argv[3]) == "st" ? banklab::Op::Store : banklab::Op::Load;
  const long n = std::atol(argv[4]);
  if (!banklab::is_legal_width(width) || n < 0 || (fn != "count" && fn != "summarize" && fn != "analyze")) {
    std::fprintf(stderr, "model_instructions: bad arguments\n");
    return 2;
  }
  const auto pool = banklab::bench::make_pool(width, op);
  long sum = 0;
  for (long k = 0; k < n; ++k) {
    const banklab::WarpAccess& a = pool[static_cast<std::size_t>(k) & (pool.size() - 1)];
    if (fn == "count") {
      sum += banklab::count_wavefronts(a);
    } else if (fn == "summarize") {
      const banklab::Summary s = banklab::summarize(a);
      sum += s.wavefronts + s.minimum;
    } else {
      sum += banklab::analyze(a).wavefronts;
    }
  }
  std::printf("%ld\n", sum);  // uses the answers, so that no call is optimized away
  return 0;
}
