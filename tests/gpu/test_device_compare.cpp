// device_bytes_equal: the check's "did the call change this input?" on the GPU. Equal
// buffers, one flipped byte anywhere (the 16-byte word part, the byte tail, an unaligned start).
#include <gtest/gtest.h>

#include <vector>

#include "device/device_array.hpp"
#include "device/device_compare.hpp"
#include "gpu_guard.hpp"

using namespace kprof;

TEST(DeviceCompareGpu, FindsOneChangedByteAnywhere) {
  KPROF_REQUIRE_GPU();
  const size_t n = (1 << 20) + 7;  // words plus a 7-byte tail
  std::vector<unsigned char> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<unsigned char>(i * 131 + 7);
  DeviceArray a(n, "a"), b(n, "b");
  a.upload(host.data(), n, "a");
  b.upload(host.data(), n, "b");
  EXPECT_TRUE(device_bytes_equal(a.get(), b.get(), n, "equal"));
  for (size_t at : {size_t{0}, size_t{12345}, n - 8, n - 1}) {
    std::vector<unsigned char> changed = host;
    changed[at] ^= 0x01;
    b.upload(changed.data(), n, "b");
    EXPECT_FALSE(device_bytes_equal(a.get(), b.get(), n, "one byte")) << "byte " << at;
    // Unaligned starts take the byte path: the same flipped byte is found from offset 3.
    if (at >= 3)
      EXPECT_FALSE(
          device_bytes_equal(static_cast<char*>(a.get()) + 3, static_cast<char*>(b.get()) + 3, n - 3, "unaligned"))
          << "byte " << at;
  }
  b.upload(host.data(), n, "b");
  EXPECT_TRUE(device_bytes_equal(static_cast<char*>(a.get()) + 3, static_cast<char*>(b.get()) + 3, n - 3, "unaligned"));
  EXPECT_TRUE(device_bytes_equal(a.get(), b.get(), 0, "empty"));
}
