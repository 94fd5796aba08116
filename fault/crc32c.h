// CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected), the checksum of
// iSCSI (RFC 3720 §B.4), ext4 metadata and SCR's checkpoint files. Chosen
// over CRC-32 because x86 computes it in hardware (SSE4.2 `crc32`, 8 bytes
// an instruction), so checking a checkpoint costs about as much as reading it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "fault/status.h"

namespace ferry::fault {

// Extends `crc` (0 for a fresh checksum) over `size` bytes: the usual
// pre- and post-inversion are inside, so crc32c(crc32c(0, a), b) ==
// crc32c(0, a + b).
uint32_t crc32c(uint32_t crc, const void* data, size_t size);

// The same, without the instruction: what machines without SSE4.2 use, kept
// callable so that tests compare the two.
uint32_t crc32c_portable(uint32_t crc, const void* data, size_t size);

// Whether crc32c() uses the SSE4.2 instruction on this machine.
bool crc32c_in_hardware();

// The checksum and size of a whole file, read in large blocks.
Status crc32c_file(const std::string& path, uint32_t* crc, uint64_t* size);

}  // namespace ferry::fault
