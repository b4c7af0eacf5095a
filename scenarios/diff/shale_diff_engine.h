// ShaleDiffEngine: Shale's engine as a differential run drives it, at
// options.env (a simulated disk in diff runs) under the given path.
//
// Thread safety: one thread. Ownership: owns its DB; options.env must
// outlive it.
#pragma once

#include <memory>

#include "scenarios/diff/diff_engine.h"
#include "shale/options.h"

namespace shale::scenario {

// REQUIRES: options.env is set.
std::unique_ptr<DiffEngine> NewShaleDiffEngine(const Options& options, const std::string& path);

}  // namespace shale::scenario
