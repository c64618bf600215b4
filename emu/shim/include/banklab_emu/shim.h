/// @file shim.h
/// @brief What the judge asks of the emulator's CUDA runtime (libbanklab_emu_cudart, emu/shim/)
///        beyond CUDA's own calls.
///
/// Declared weak: a judge linked against NVIDIA's runtime has none of them (their addresses are
/// null), which is how the judge's code, compiled once for both links, tells an emulated test
/// process from one on a GPU (docs/dev/EMULATOR.md, "One harness, two devices").
#pragma once

extern "C" {
/// The emulated device in words ("banklab emulator: sm_90 PTX run on the CPU").
const char* banklab_emu_device(void) __attribute__((weak));
/// The first "not judged (emulator: ...)" message of the launches and loads since the last call
/// ("" when there was none); the call clears it. The judge makes such a test a skip.
const char* banklab_emu_take_not_judged(void) __attribute__((weak));
/// Warp instructions the emulator ran in this process so far.
unsigned long long banklab_emu_warp_instructions(void) __attribute__((weak));
}
