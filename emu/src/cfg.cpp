// Where the lanes of a divergent branch meet again: the branch's immediate post-dominator, the
// first instruction every path from the branch to the kernel's end passes (Cooper, Harvey and
// Kennedy's "A Simple, Fast Dominance Algorithm" on the reversed control-flow graph, per basic
// block). The executor's SIMT stack (exec.cpp) runs each side of a divergent branch up to it.
#include <algorithm>
#include <functional>
#include <vector>

#include "banklab_emu/ptx.hpp"

namespace banklab::emu {

void compute_reconvergence(Kernel& k) {
  const int n = static_cast<int>(k.code.size());
  k.reconverge.assign(static_cast<std::size_t>(n), n);
  if (n == 0) return;
  // Basic blocks: a leader at 0, at every branch target, after every branch, ret and exit.
  std::vector<char> leader(static_cast<std::size_t>(n) + 1, 0);
  leader[0] = 1;
  for (int i = 0; i < n; ++i) {
    const Inst& in = k.code[static_cast<std::size_t>(i)];
    if (in.family == Family::Bra) {
      const int t = static_cast<int>(in.ops[0].imm);
      if (t >= 0 && t <= n) leader[static_cast<std::size_t>(t)] = 1;
    }
    if (in.family == Family::Bra || in.family == Family::Ret || in.family == Family::Exit) leader[static_cast<std::size_t>(i) + 1] = 1;
  }
  std::vector<int> block_of(static_cast<std::size_t>(n) + 1), start;
  for (int i = 0; i < n; ++i) {
    if (leader[static_cast<std::size_t>(i)]) start.push_back(i);
    block_of[static_cast<std::size_t>(i)] = static_cast<int>(start.size()) - 1;
  }
  const int blocks = static_cast<int>(start.size());
  const int exit = blocks;  // the virtual exit node
  block_of[static_cast<std::size_t>(n)] = exit;
  std::vector<std::vector<int>> succ(static_cast<std::size_t>(blocks) + 1), pred(static_cast<std::size_t>(blocks) + 1);
  for (int b = 0; b < blocks; ++b) {
    const int last = (b + 1 < blocks ? start[static_cast<std::size_t>(b) + 1] : n) - 1;
    const Inst& in = k.code[static_cast<std::size_t>(last)];
    std::vector<int>& s = succ[static_cast<std::size_t>(b)];
    const bool guarded = in.guard >= 0;
    if (in.family == Family::Bra) {
      const int t = static_cast<int>(in.ops[0].imm);
      s.push_back(t >= 0 && t <= n ? block_of[static_cast<std::size_t>(t)] : exit);
      if (guarded) s.push_back(block_of[static_cast<std::size_t>(last) + 1]);
    } else if (in.family == Family::Ret || in.family == Family::Exit) {
      s.push_back(exit);
      if (guarded) s.push_back(block_of[static_cast<std::size_t>(last) + 1]);
    } else {
      s.push_back(block_of[static_cast<std::size_t>(last) + 1]);
    }
    for (int t : s) pred[static_cast<std::size_t>(t)].push_back(b);
  }
  // Post-order of the reversed graph from the exit (iterative DFS over predecessors).
  std::vector<int> order, number(static_cast<std::size_t>(blocks) + 1, -1);
  std::vector<std::pair<int, std::size_t>> stack{{exit, 0}};
  std::vector<char> seen(static_cast<std::size_t>(blocks) + 1, 0);
  seen[static_cast<std::size_t>(exit)] = 1;
  while (!stack.empty()) {
    auto& [b, i] = stack.back();
    const std::vector<int>& p = pred[static_cast<std::size_t>(b)];
    if (i < p.size()) {
      const int c = p[i++];
      if (!seen[static_cast<std::size_t>(c)]) {
        seen[static_cast<std::size_t>(c)] = 1;
        stack.push_back({c, 0});
      }
    } else {
      number[static_cast<std::size_t>(b)] = static_cast<int>(order.size());
      order.push_back(b);
      stack.pop_back();
    }
  }
  std::vector<int> ipdom(static_cast<std::size_t>(blocks) + 1, -1);
  ipdom[static_cast<std::size_t>(exit)] = exit;
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (number[static_cast<std::size_t>(a)] < number[static_cast<std::size_t>(b)]) a = ipdom[static_cast<std::size_t>(a)];
      while (number[static_cast<std::size_t>(b)] < number[static_cast<std::size_t>(a)]) b = ipdom[static_cast<std::size_t>(b)];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {  // reverse post-order
      const int b = *it;
      if (b == exit) continue;
      int d = -1;
      for (int s : succ[static_cast<std::size_t>(b)]) {  // the reversed graph's predecessors
        if (ipdom[static_cast<std::size_t>(s)] < 0) continue;
        d = d < 0 ? s : intersect(s, d);
      }
      if (d >= 0 && ipdom[static_cast<std::size_t>(b)] != d) {
        ipdom[static_cast<std::size_t>(b)] = d;
        changed = true;
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (k.code[static_cast<std::size_t>(i)].family != Family::Bra) continue;
    const int d = ipdom[static_cast<std::size_t>(block_of[static_cast<std::size_t>(i)])];
    // A block that never reaches the exit (an endless loop) has none: its lanes meet at the end.
    k.reconverge[static_cast<std::size_t>(i)] = d < 0 || d == exit ? n : start[static_cast<std::size_t>(d)];
  }
}

}  // namespace banklab::emu
