// A POSIX descriptor's write at its own offset (see fd_offset.h).
#include "hosted/fd_offset.h"

#include <algorithm>

namespace shale::hosted {

Status AppendAtFdOffset(WritableFile* file, const Slice& bytes, bool reused, uint64_t* offset) {
  const bool at_end = !reused && file->GetFileSize() == *offset;
  const Status s = at_end ? file->Append(bytes) : file->PositionedAppend(bytes, *offset);
  *offset = s.ok() ? *offset + bytes.size() : std::max(*offset, file->GetFileSize());
  return s;
}

}  // namespace shale::hosted
