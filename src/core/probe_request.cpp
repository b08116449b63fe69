#include "core/probe_request.hpp"

#include "core/error.hpp"
#include "core/host_json.hpp"

namespace kprof {

nlohmann::json to_json(const ProbeRequest& r) {
  return {{"command", "__probe"}, {"kprof_version", KPROF_VERSION}, {"gpu", r.gpu}, {"host", host_to_json(r.host)}};
}

ProbeRequest probe_request_from_json(const nlohmann::json& j) {
  if (!j.is_object())
    throw usage_error(std::string("the probe request is not a JSON object (") + j.type_name() + ")",
                      "a request is an object of fields");
  ProbeRequest r;
  auto it = j.find("gpu");
  if (it == j.end() || !it->is_number_integer() || it->get<long long>() < 0)
    throw usage_error("request field 'gpu' is missing, of the wrong type or negative" +
                          (it == j.end() ? std::string() : " (" + it->dump() + ")"),
                      "a CUDA device index: 0, 1, ...");
  r.gpu = it->get<int>();
  if (auto it = j.find("host"); it != j.end() && !it->is_null()) r.host = host_from_json(*it);
  return r;
}

}  // namespace kprof
