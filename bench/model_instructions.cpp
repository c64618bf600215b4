// Runs one model entry point N times over model_bench's pool, for a load-independent figure:
// instructions per access under callgrind (bench/model_callgrind.sh takes the difference of
// two runs, so building the pool and starting the process cancel out).
//
//   model_instructions count|summarize|analyze WIDTH ld|st N [mixed|realistic|random|conflict-free]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "banklab/model.hpp"
#include "model_pool.hpp"

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: %s count|summarize|analyze WIDTH ld|st N [mixed|realistic|random|conflict-free]\n", argv[0]);
    return 2;
  }
  const std::string fn = argv[1];
  const int width = std::atoi(argv[2]);
  bool n_bad = false;
  const banklab::Op op = std::string(argv[3]) == "st" ? banklab::Op::Store : banklab::Op::Load;
  const long n = std::atol(argv[4]);
  const std::string pool_arg = argc == 6 ? argv[5] : "mixed";
  banklab::bench::Pool kind = banklab::bench::Pool::Mixed;
  if (pool_arg == "realistic") kind = banklab::bench::Pool::Realistic;
  else if (pool_arg == "random") kind = banklab::bench::Pool::Random;
  else if (pool_arg == "conflict-free") kind = banklab::bench::Pool::ConflictFree;
  else if (pool_arg != "mixed") n_bad = true;
  if (n_bad || !banklab::is_legal_width(width) || n < 0 || (fn != "count" && fn != "summarize" && fn != "analyze")) {
    std::fprintf(stderr, "model_instructions: bad arguments\n");
    return 2;
  }
  const auto pool = banklab::bench::make_pool(width, op, kind);
  const std::size_t wrap = pool.size() - 1;
  long sum = 0;
  // One loop per entry point, so that the figure is the model's cost, not the choice of it.
  if (fn == "count") {
    for (long k = 0; k < n; ++k) sum += banklab::count_wavefronts(pool[static_cast<std::size_t>(k) & wrap]);
  } else if (fn == "summarize") {
    for (long k = 0; k < n; ++k) {
      const banklab::Summary s = banklab::summarize(pool[static_cast<std::size_t>(k) & wrap]);
      sum += s.wavefronts + s.minimum;
    }
  } else {
    for (long k = 0; k < n; ++k) sum += banklab::analyze(pool[static_cast<std::size_t>(k) & wrap]).wavefronts;
  }
  std::printf("%ld\n", sum);  // uses the answers, so that no call is optimized away
  return 0;
}
