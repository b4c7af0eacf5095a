// The names under which an open-channel run reports its flash figures
// (RunResult::observed), shared by the run (FlashUnderTest::Describe) and
// the campaign report, which sums them (and takes the maximum wear).
#pragma once

namespace shale::scenario::flash_figures {

inline constexpr const char* kBytesWritten = "flash: bytes the engine wrote";
inline constexpr const char* kBytesProgrammed = "flash: bytes programmed";
inline constexpr const char* kPadSectors = "flash: pad sectors";
inline constexpr const char* kChunksSealed = "flash: chunks sealed";
inline constexpr const char* kResets = "flash: chunk resets";
inline constexpr const char* kChunks = "flash: chunks";
inline constexpr const char* kMaxWear = "flash: max wear";
inline constexpr const char* kChunksOffline = "flash: chunks offline";
inline constexpr const char* kTornUnits = "flash: torn units";
inline constexpr const char* kDamagedRanges = "flash: damaged ranges mounts found";

}  // namespace shale::scenario::flash_figures
