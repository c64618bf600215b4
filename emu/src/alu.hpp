// One lane's arithmetic (alu.cpp): the executor calls it for every family that computes a value
// from its operands.
#pragma once
#include <cstdint>

#include "banklab_emu/ptx.hpp"

namespace banklab::emu {

/// out = the instruction's result for operands a, b, c (d unused: kept for four-source families).
/// False when the family does not define this type or modifier (the launch ends "not judged").
bool alu(const Inst& in, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d, std::uint64_t& out);

}  // namespace banklab::emu
