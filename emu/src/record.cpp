// Emulated global memory (Device) and the shared-memory records (EmuTrace), in the hardware
// tracer's own format and through its own code: trace::Merger merges, trace::decode() turns
// records into what the judge's traced check reads.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "banklab_emu/emulator.hpp"
#include "exec_families.hpp"

namespace banklab::emu {

std::uint64_t Device::alloc(std::size_t bytes) {
  const std::uint64_t step = (static_cast<std::uint64_t>(bytes) + 255) / 256 * 256 + 256;  // a gap: an access just past the end faults
  if (bytes > max_bytes_ - in_use_ || step > end_ - next_) return 0;  // compared, never summed
  const std::uint64_t at = next_;
  next_ += step;
  allocations_[at].assign(bytes, 0);
  in_use_ += bytes;
  last_ = nullptr;
  return at;
}

std::uint64_t Device::variable(const void* module, int index, std::size_t bytes, const std::vector<unsigned char>& init) {
  auto [it, fresh] = variables_.try_emplace({module, index}, 0);
  if (fresh) {
    it->second = alloc(bytes ? bytes : 1);
    write(it->second, init.data(), std::min(init.size(), bytes));
  }
  return it->second;
}

void Device::release_variables(const void* module) {
  for (auto it = variables_.begin(); it != variables_.end();) {
    if (it->first.first != module) {
      ++it;
      continue;
    }
    free(it->second);
    it = variables_.erase(it);
  }
}

void Device::free(std::uint64_t address) {
  auto it = allocations_.find(address);
  if (it == allocations_.end()) return;
  in_use_ -= it->second.size();
  allocations_.erase(it);
  last_ = nullptr;
}

unsigned char* Device::at(std::uint64_t address, std::size_t bytes) {
  // Sizes compared, never summed: an address near 2^64 must not wrap into an allocation.
  auto inside = [&](const std::pair<const std::uint64_t, std::vector<unsigned char>>& a) {
    return address >= a.first && address - a.first <= a.second.size() && bytes <= a.second.size() - (address - a.first);
  };
  if (last_ && inside(*last_))
    return const_cast<unsigned char*>(last_->second.data()) + (address - last_->first);
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  --it;
  if (!inside(*it)) return nullptr;
  last_ = &*it;
  return it->second.data() + (address - it->first);
}

void Device::write(std::uint64_t address, const void* data, std::size_t bytes) {
  unsigned char* p = at(address, bytes);
  if (!p) throw std::out_of_range("emulated device: write outside an allocation");
  std::memcpy(p, data, bytes);
}

void Device::read(std::uint64_t address, void* data, std::size_t bytes) const {
  unsigned char* p = const_cast<Device*>(this)->at(address, bytes);
  if (!p) throw std::out_of_range("emulated device: read outside an allocation");
  std::memcpy(data, p, bytes);
}

std::uint32_t EmuTrace::kernel_index(const Kernel& k) {
  for (std::size_t i = 0; i < kernel_code_.size(); ++i)
    if (kernel_code_[i] == &k) return static_cast<std::uint32_t>(i);
  kernel_code_.push_back(&k);
  trace::KernelInfo info;
  info.name = k.name;
  info.module = 0;
  info.base_pc = 0;
  kernels_.push_back(info);
  return static_cast<std::uint32_t>(kernels_.size() - 1);
}

void EmuTrace::record(const Kernel& kernel, int pc, const trace::DeviceRecord& rec) {
  if (!records_tma_ && (rec.kind == trace::kKindTmaLoad || rec.kind == trace::kKindTmaStore)) return;
  const std::uint32_t k = kernel_index(kernel);
  const std::uint64_t key = static_cast<std::uint64_t>(pc) * 16;
  if (lines_.find({k, key}) == lines_.end()) {
    const Inst& in = kernel.code[static_cast<std::size_t>(pc)];
    auto f = files_.find(in.file);
    lines_[{k, key}] = trace::SourceLine{f == files_.end() ? "" : f->second, in.line};
  }
  // Which ATOMS an atomic is: what the tracer reads from the cubin, here from the PTX (exec_atom.cpp).
  if (rec.kind == trace::kKindAccess && (rec.flags & trace::kFlagAtomic) == trace::kFlagAtomic)
    atoms_.emplace(std::make_pair(k, key), atoms_kind_of(kernel.code[static_cast<std::size_t>(pc)]));
  merger_.add(k, &rec, 1);
  ++recorded_;
}

trace::TraceData EmuTrace::take_data() {
  trace::TraceData data;
  data.cubins.push_back("");  // no image: the lines come from the PTX (take_instructions)
  data.kernels = kernels_;
  data.records = merger_.take();
  return data;
}

std::vector<trace::Instruction> EmuTrace::take_instructions() {
  const trace::TraceData data = take_data();
  std::vector<trace::Instruction> ins;
  std::vector<trace::Unmodelled> un;
  trace::decode(data, ins, un);  // the tracer's own decoding: op, width, offsets minus the reserved window
  for (trace::Instruction& i : ins) {
    std::uint32_t k = 0;
    while (k < kernels_.size() && kernels_[k].name != i.kernel) ++k;
    if (auto l = lines_.find({k, i.pc}); l != lines_.end()) {
      i.file = l->second.file;
      i.line = l->second.line;
    }
    // (a compare-and-swap loop's load has the atomic's pc: decode() made it a load)
    if (auto a = atoms_.find({k, i.pc}); a != atoms_.end() && i.access.op == Op::Atomic)
      i.access.op = trace::atom_op_of(a->second, i.access.width);
  }
  unmodelled_.insert(unmodelled_.end(), un.begin(), un.end());
  return ins;
}

}  // namespace banklab::emu
