#include <c10/Core.h>
#include <c10/Version.h>

namespace c10 {

const char* version() { return C10_VERSION; }

void check(bool cond, const std::string& message) {
  if (!cond) throw Error(message);
}

}  // namespace c10
