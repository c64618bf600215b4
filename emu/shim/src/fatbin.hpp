// The PTX of a fatbin (magic 0xBA55ED50: entries of kind 1, PTX, and 2, cubin), as nvcc writes it
// for the student's file (banklab-judge build: -no-compress, code=[sm_90,compute_90]) and for the
// judge's own kernels (their objects compiled with -no-compress). Bounds-checked: the image is the
// student's.
#pragma once
#include <cstddef>
#include <string>

namespace banklab::emu::shim {

/// The PTX text of the image's PTX entry for the newest architecture it holds, or "" with `why`
/// set (no PTX entry, a compressed one, a header that runs past the image). `limit`: the bytes the
/// image may span when its size is not known (a registered fatbin: its header says).
std::string ptx_of_fatbin(const void* image, std::size_t limit, std::string& why);

/// The same for what nvcc's registration code hands __cudaRegisterFatBinary: a wrapper (magic
/// 0x466243B1) that points at the fatbin.
std::string ptx_of_registered(const void* wrapper, std::string& why);

}  // namespace banklab::emu::shim
