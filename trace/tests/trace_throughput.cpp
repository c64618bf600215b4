// Host-side throughput of banklab trace: warp records merged, written, read back, decoded,
// analysed with the model and reported, per second. Records follow a tiled transpose: each
// block's warps repeat the same shared offsets, as real kernels do.
//   trace_throughput [MILLIONS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "banklab_trace/trace.hpp"

namespace bt = banklab::trace;

int main(int argc, char** argv) {
  const double millions = argc > 1 ? std::atof(argv[1]) : 20.0;
  const std::size_t n = static_cast<std::size_t>(millions * 1e6);
  // One batch = a launch's worth of records as the device buffer would hand them over.
  std::vector<bt::DeviceRecord> batch(1 << 16);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    bt::DeviceRecord& r = batch[i];
    const int row = static_cast<int>(i % 8);
    r.pc = 0x100 + 0x10 * (i % 4);
    r.mask = 0xffffffffu;
    r.kind = bt::kKindAccess;
    r.width = 4;
    r.flags = (i % 2) ? bt::kFlagRead : bt::kFlagWrite;
    for (int l = 0; l < 32; ++l)
      r.offset[l] = bt::kSharedWindowReservedBytes + ((i % 2) ? (l * 33 + row) * 4 : (row * 33 + l) * 4);
  }
  const auto t0 = std::chrono::steady_clock::now();
  bt::Merger m;
  std::size_t done = 0;
  while (done < n) {
    const std::size_t k = std::min(batch.size(), n - done);
    m.add(0, batch.data(), k);
    done += k;
  }
  bt::TraceData d;
  d.cubins.emplace_back();
  d.kernels.push_back(bt::KernelInfo{"transpose", 0, 0, 1});
  d.records = m.take();
  std::stringstream s(std::ios::in | std::ios::out | std::ios::binary);
  bt::write_trace(s, d);
  const bt::TraceData back = bt::read_trace(s);
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
  bt::decode(back, ins, un);
  std::ostringstream out;
  bt::write_report(out, bt::Format::Text, bt::aggregate(ins, un), ins);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("trace_throughput: %zu warp records (%zu distinct) merged, saved, decoded, analysed and "
              "reported in %.3f s: %.1f million per second\n",
              n, back.records.size(), secs, n / secs / 1e6);
  return 0;
}
