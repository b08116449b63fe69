// Precompiled header for kprof's C++ translation units (CMakeLists.txt, kprof_pch): the standard
// headers most files include plus fmt and nlohmann/json (header-only, the two costliest to parse).
// Including it changes no behaviour: every file still includes what it uses.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
